package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/upstream"
)

// A per-user server (per_user on a stdio server, oauth.per_user on a
// remote one) keeps the hub's own connection for its catalog, while every
// call from a signed-in user of the face runs on that user's own instance:
// a child started with the user's stored secrets, or a session carrying the
// user's own token. The hub asks userPool through Options.Instance; the
// user comes from the verified token, put in the context by withUsers.

// reapEvery is how often idle per-user instances are looked for.
const reapEvery = time.Second

type userCtxKey struct{}

// withUser returns ctx carrying the signed-in user of the face.
func withUser(ctx context.Context, user string) context.Context {
	return context.WithValue(ctx, userCtxKey{}, user)
}

// userFrom returns the signed-in user withUser stored, or "".
func userFrom(ctx context.Context) string {
	u, _ := ctx.Value(userCtxKey{}).(string)
	return u
}

// withUsers is the face middleware that puts the user of a request's
// verified token ([gateway.auth]) in its context, for every method, so
// that weft__call_tool and plans see the same user as a direct call.
func withUsers(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
			ctx = withUser(ctx, extra.TokenInfo.UserID)
		}
		return next(ctx, method, req)
	}
}

// NoUserError is a call of a per-user server that no signed-in user made
// (the static token, or a face without [gateway.auth] users).
type NoUserError struct{ Server string }

func (e *NoUserError) Error() string {
	return fmt.Sprintf("%s runs one instance per user: call it with an access token from the issuer in [gateway.auth]", e.Server)
}

type userKey struct{ server, user string }

// userInstance is one user's connection to one server. All fields but
// ready, conn and err are guarded by userPool.mu; conn and err are set once,
// before ready closes.
type userInstance struct {
	ready    chan struct{}
	conn     *upstream.Conn
	err      error
	cfg      *config.Server
	inflight int
	used     time.Time
	retired  bool // replaced or removed: closed once its last call ends
}

// userPool owns the per-user instances: it starts one on a user's first
// call, hands it to each of the user's calls, and stops it when it has
// been idle for the server's idle_timeout, when the server's config
// changes, or when the pool closes.
type userPool struct {
	opts    upstream.Options // the hub's upstream options
	servers func(name string) (*config.Server, bool)
	authOn  func() bool // [gateway.auth] verifies users
	logins  *oauth.Manager
	logger  *slog.Logger
	dial    func(context.Context, *config.Server, upstream.Options) (*upstream.Conn, error)
	now     func() time.Time

	// onSecrets is called after an instance started with secrets not seen
	// before, so that the log masks them (Daemon.maskSecrets).
	onSecrets func()

	mu      sync.Mutex
	insts   map[userKey]*userInstance
	closed  bool
	reaping bool                // the reaper runs
	secrets map[string]struct{} // every user secret an instance got

	stop chan struct{}
	wg   sync.WaitGroup // the reaper
	bg   sync.WaitGroup // closes of retired instances
}

// newUserPool returns a pool; its reaper starts with the first instance
// and runs until Close.
func newUserPool(opts upstream.Options, logins *oauth.Manager, logger *slog.Logger) *userPool {
	opts.OnInventory, opts.OnResourceUpdated, opts.OnClosed = nil, nil, nil
	return &userPool{opts: opts, logins: logins, logger: logger, dial: upstream.Dial, now: time.Now,
		insts: map[userKey]*userInstance{}, stop: make(chan struct{})}
}

// Instance is hub.Options.Instance: the caller's own connection for a
// per-user server, or nil for any other server.
func (p *userPool) Instance(ctx context.Context, server string) (*upstream.Conn, func(), error) {
	cfg, ok := p.servers(server)
	if !ok || !cfg.IsPerUser() || !p.authOn() {
		return nil, nil, nil
	}
	user := userFrom(ctx)
	if user == "" {
		return nil, nil, &NoUserError{Server: server}
	}
	key := userKey{server, user}
	inst, first, err := p.enter(key, cfg)
	if err != nil {
		return nil, nil, err
	}
	if first {
		inst.conn, inst.err = p.start(ctx, cfg, user)
		close(inst.ready)
	}
	select {
	case <-inst.ready:
	case <-ctx.Done():
		p.leave(inst)
		return nil, nil, ctx.Err()
	}
	if inst.err != nil {
		p.leave(inst)
		p.forget(key, inst)
		return nil, nil, inst.err
	}
	return inst.conn, func() { p.leave(inst) }, nil
}

// enter returns the user's instance of the server, counting a call on it;
// first says the caller must start it. An instance of an older config, or
// one whose session ended, is retired and replaced.
func (p *userPool) enter(key userKey, cfg *config.Server) (inst *userInstance, first bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, false, errors.New("weft is shutting down")
	}
	if old := p.insts[key]; old != nil {
		stale := !reflect.DeepEqual(old.cfg, cfg)
		if !stale && isReady(old) && old.conn != nil && old.conn.Broken() {
			stale = true
		}
		if !stale {
			old.inflight++
			old.used = p.now()
			return old, false, nil
		}
		p.retireLocked(key, old)
	}
	inst = &userInstance{ready: make(chan struct{}), cfg: cfg, inflight: 1, used: p.now()}
	p.insts[key] = inst
	if !p.reaping {
		p.reaping = true
		p.wg.Add(1)
		go p.reap()
	}
	return inst, true, nil
}

func isReady(inst *userInstance) bool {
	select {
	case <-inst.ready:
		return true
	default:
		return false
	}
}

// leave ends one call on inst; a retired instance closes after its last.
func (p *userPool) leave(inst *userInstance) {
	p.mu.Lock()
	inst.inflight--
	inst.used = p.now()
	if inst.retired && inst.inflight == 0 {
		p.bg.Go(func() { p.closeInstance(inst) })
	}
	p.mu.Unlock()
}

// forget drops inst (a failed start) so that the next call starts afresh.
func (p *userPool) forget(key userKey, inst *userInstance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.insts[key] == inst {
		delete(p.insts, key)
	}
}

// retireLocked takes inst out of the pool; it is closed now if idle, else
// by the last call's leave.
func (p *userPool) retireLocked(key userKey, inst *userInstance) {
	delete(p.insts, key)
	inst.retired = true
	if inst.inflight == 0 {
		p.bg.Go(func() { p.closeInstance(inst) })
	}
}

// closeInstance closes inst's connection once it has one.
func (p *userPool) closeInstance(inst *userInstance) {
	<-inst.ready
	if inst.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		inst.conn.Close(ctx)
	}
}

// start connects the user's instance of cfg: a stdio child with the user's
// secrets added to its environment, or a remote session with the user's
// own login.
func (p *userPool) start(ctx context.Context, cfg *config.Server, user string) (*upstream.Conn, error) {
	opts := p.opts
	opts.Logger = p.logger.With("user", user)
	if cfg.Transport() == config.TransportStdio {
		if p.logins != nil {
			secrets, err := p.logins.Secrets(cfg.Name, user)
			if err != nil {
				return nil, fmt.Errorf("%s: read the secrets of user %s: %w", cfg.Name, user, err)
			}
			env := maps.Clone(opts.ExtraEnv)
			if env == nil {
				env = map[string]string{}
			}
			maps.Copy(env, secrets)
			opts.ExtraEnv = env
			p.noteSecrets(secrets)
		}
	} else {
		if p.logins == nil {
			return nil, fmt.Errorf("%s keeps one login per user, but weft has no token store; set [security] token_store", cfg.Name)
		}
		m := p.logins.AsUser(user)
		opts.OAuth = func(c *config.Server) auth.OAuthHandler { return m.Handler(c) }
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout())
	defer cancel()
	conn, err := p.dial(ctx, cfg, opts)
	if err != nil {
		return nil, err
	}
	p.logger.Info("per-user instance started", "server", cfg.Name, "user", user)
	return conn, nil
}

// noteSecrets remembers secret values for the log's masking, before the
// child that gets them can print them.
func (p *userPool) noteSecrets(secrets map[string]string) {
	p.mu.Lock()
	fresh := false
	for _, v := range secrets {
		if _, ok := p.secrets[v]; !ok {
			if p.secrets == nil {
				p.secrets = map[string]struct{}{}
			}
			p.secrets[v], fresh = struct{}{}, true
		}
	}
	p.mu.Unlock()
	if fresh && p.onSecrets != nil {
		p.onSecrets()
	}
}

// secretValues lists the user secrets instances were started with.
func (p *userPool) secretValues() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.secrets))
	for v := range p.secrets {
		out = append(out, v)
	}
	return out
}

// reap stops instances idle past their server's idle_timeout, and those of
// servers no longer configured per user, until Close.
func (p *userPool) reap() {
	defer p.wg.Done()
	tick := time.NewTicker(reapEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.reapOnce()
		}
	}
}

func (p *userPool) reapOnce() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for key, inst := range p.insts {
		cfg, ok := p.servers(key.server)
		gone := !ok || !cfg.IsPerUser()
		if inst.inflight > 0 && !gone || !isReady(inst) {
			continue
		}
		if gone || now.Sub(inst.used) >= inst.cfg.UserIdleTimeout() {
			p.logger.Info("per-user instance stopped", "server", key.server, "user", key.user, "idle", now.Sub(inst.used).Round(time.Second))
			p.retireLocked(key, inst)
		}
	}
}

// Close stops the reaper and every instance, waiting for them.
func (p *userPool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	insts := p.insts
	p.insts = map[userKey]*userInstance{}
	p.mu.Unlock()
	close(p.stop)
	p.wg.Wait()
	var wg sync.WaitGroup
	for _, inst := range insts {
		wg.Go(func() { p.closeInstance(inst) })
	}
	wg.Wait()
	p.bg.Wait()
}

// newUserPool builds the daemon's pool of per-user instances over the
// hub's upstream options and the token store (where the users' logins and
// secrets are).
func (d *Daemon) newUserPool(cfg *config.Config, hopts hub.Options) *userPool {
	logins, err := oauth.OpenManager(cfg.Security.TokenStore, d.logger, nil)
	if err != nil {
		logins = nil // upstreamLogins has said why
	}
	p := newUserPool(hopts.Upstream, logins, d.logger)
	p.servers = func(name string) (*config.Server, bool) { return d.hub.Config(name) }
	p.authOn = func() bool { return d.Config().Gateway.Auth != nil }
	p.onSecrets = func() { d.maskSecrets(d.Config()) }
	return p
}

// userStamp is the first observer of every call: it names the signed-in
// user in the call's record, for the audit log and the dashboard.
type userStamp struct{}

func (userStamp) CallStarted(ctx context.Context, c *hub.Call) context.Context {
	c.Caller.User = userFrom(ctx)
	return ctx
}

func (userStamp) CallEnded(context.Context, *hub.Call) {}

func (userStamp) ServerChanged(hub.ServerEvent) {}
