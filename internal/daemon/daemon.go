// Package daemon is weft's composition root. Built once from a Config, a
// Daemon owns the hub, the gateway face, the tool pins, the plan store, the
// delegator and the agent factory, and it is the one path every config
// change takes (Change). internal/cli keeps flags and printing only.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/audit"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/policy"
)

// Options configure a Daemon. The zero value works: a default logger, no
// version, no secret masking.
type Options struct {
	Logger  *slog.Logger
	Version string
	// Secrets, when set, is kept in step with the secret values of the
	// config each change applies, so logs and errors mask them.
	Secrets *policy.Secrets
	// NoWatch turns off the watcher of the config file (tests, one-shot
	// runs that do not want outside edits).
	NoWatch bool
	// ApprovalTimeout bounds mcp_manage's wait for the human's answer (0:
	// the gateway's default).
	ApprovalTimeout time.Duration
}

// Daemon is a running weft: one hub and its face over one config file.
type Daemon struct {
	opts   Options
	logger *slog.Logger
	path   string // the config file; fixed for the daemon's life
	depth  int    // this weft's delegation depth, from its environment

	hub  *hub.Hub
	gw   *gateway.Gateway
	pins *policy.Pins
	del  *delegator
	// agents are the agents' MCP faces (agents.go).
	agents *agentFaces
	obs    *observability // metrics, audit log, traces, dashboard (observe.go)
	// users runs per-user instances of per_user servers (peruser.go).
	users *userPool

	// changeMu serialises Change in this process; the config file's lock
	// serialises it across processes. Lock order: changeMu, then the file
	// lock, then the hub's own locks (taken inside hub calls).
	changeMu sync.Mutex

	cfgMu sync.RWMutex
	cfg   *config.Config // guarded by cfgMu: the config last applied
	hash  string         // guarded by cfgMu: weft.toml's content hash when cfg was applied

	watchMu   sync.Mutex
	stopWatch func() // guarded by watchMu; set by Start, called by Close
}

// New builds a daemon for cfg: nothing is connected until Start.
func New(cfg *config.Config, opts Options) (*Daemon, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	pins, err := policy.OpenPins(policy.PinsPath(cfg.Path), cfg.Security.Pinning, opts.Logger)
	if err != nil {
		return nil, err
	}
	d := &Daemon{opts: opts, logger: opts.Logger, path: cfg.Path, pins: pins}
	hopts := HubOptions(cfg, opts.Logger)
	hopts.ToolFilter = pins.Filter
	hopts.Approvals = pins
	if cfg.Security.BlockPrivateURLs {
		hopts.Upstream.DialControl = policy.RefusePrivateDial
	}
	d.depth = delegationDepth(&hopts)
	var src hubSource
	var redact audit.Redactor
	if opts.Secrets != nil {
		redact = opts.Secrets
	}
	if d.obs, err = newObservability(context.Background(), cfg, opts.Version, redact, &src); err != nil {
		return nil, err
	}
	hopts.Observer = hub.Observers{userStamp{}, d.obs.observer()}
	d.users = d.newUserPool(cfg, hopts)
	hopts.Instance = d.users.Instance
	d.obs.userInstances = d.users.instanceCounts
	d.hub = hub.New(hopts)
	src.Hub = d.hub
	pins.OnChange = d.hub.Refresh // another weft's approval merged in
	d.del = &delegator{d: d, cfg: cfg}
	health, routes := d.obs.gatewayOptions(cfg)
	routes = append(routes, d.obs.dashboardRoute(cfg, &src, dashboardActions{d}, dashboardAgents{d}))
	faceOpts := gateway.Options{Logger: opts.Logger, Version: opts.Version, Plans: d.planService(),
		Manage:          gateway.ManageOptions{Manager: d, ApprovalTimeout: opts.ApprovalTimeout},
		Delegation:      gateway.DelegationOptions{Depth: d.depth, Max: cfg.Security.MaxDelegationDepth},
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Delegate:        d.obs.delegator(d.del),
		Login:           d.loginThroughClient(),
		Health:          health, Routes: routes, Middleware: append(d.obs.middleware(), withUsers),
		View:    agentview.Everything(cfg.Gateway.Separator, cfg.Limits.MaxTools),
		PerUser: d.perUserStatus}
	d.agents = newAgentFaces(d.hub, faceOpts, func(agent string) gateway.Manager { return agentManager{d, agent} })
	d.agents.delegate = func(agent string) gateway.Delegator { return agentDelegator{d, agent} }
	d.agents.plans = d.plansAs
	faceOpts.Agents = d.agents
	d.gw = gateway.New(d.hub, faceOpts)
	d.obs.sources, d.obs.sessionList = d.sessionsByFace, d.sessionList // agentsdash.go
	d.setConfig(cfg, "")
	return d, nil
}

// Start begins connecting every enabled server in the background and
// returns at once, so that the faces answer while upstreams come up (a
// server that fails is listed with its error and retried; weft serves the
// others); Settle waits for the first attempts. Unless Options.NoWatch, it
// starts watching the config file for outside edits.
func (d *Daemon) Start(ctx context.Context) error {
	d.hub.Start(d.Config().HubServers())
	d.obs.applied.Store(true)
	if d.opts.NoWatch {
		return nil
	}
	d.watchMu.Lock()
	defer d.watchMu.Unlock()
	if d.stopWatch != nil {
		return errors.New("daemon already started")
	}
	d.stopWatch = d.startWatcher(context.WithoutCancel(ctx))
	return nil
}

// Settle waits until every server's first connection attempt is over (or
// ctx ends) and the tool pins it recorded are saved: one-shot commands see
// the whole catalog, and whoever waits for serve's summary line finds the
// pins file written.
func (d *Daemon) Settle(ctx context.Context) {
	for name, err := range d.hub.Settle(ctx) {
		d.logger.Warn("server not connected; weft serves the others", "server", name, "err", err)
	}
	d.pins.Flush()
}

// Close stops the watcher and drains every server, each for at most ctx's
// lifetime.
func (d *Daemon) Close(ctx context.Context) {
	d.watchMu.Lock()
	stop := d.stopWatch
	d.stopWatch = nil
	d.watchMu.Unlock()
	if stop != nil {
		stop()
	}
	d.hub.Close(ctx)
	d.users.Close()
	d.obs.close()
	d.pins.Flush()
}

// CloseEventStreams ends the dashboard's event streams, which never end
// on their own: call it when the HTTP server shuts down.
func (d *Daemon) CloseEventStreams() { d.obs.live.Close() }

// Hub is the daemon's hub.
func (d *Daemon) Hub() *hub.Hub { return d.hub }

// Gateway is the daemon's MCP face.
func (d *Daemon) Gateway() *gateway.Gateway { return d.gw }

// Path is the config file the daemon runs from.
func (d *Daemon) Path() string { return d.path }

// Config is the config last applied. Callers must not modify it.
func (d *Daemon) Config() *config.Config {
	d.cfgMu.RLock()
	defer d.cfgMu.RUnlock()
	return d.cfg
}

// ConfigHash is the content hash of weft.toml as last applied ("" before
// the first change): the If-Match precondition of an admin change.
func (d *Daemon) ConfigHash() string {
	d.cfgMu.RLock()
	defer d.cfgMu.RUnlock()
	return d.hash
}

func (d *Daemon) setConfig(cfg *config.Config, hash string) {
	if hash == "" {
		b, err := os.ReadFile(cfg.Path)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			hash = config.Hash(b)
		}
	}
	d.cfgMu.Lock()
	d.cfg, d.hash = cfg, hash
	d.cfgMu.Unlock()
	d.agents.apply(cfg)
	d.maskSecrets(cfg)
}

// maskSecrets keeps the log's masking in step with cfg's secret values and
// the users' secrets their per-user instances were started with.
func (d *Daemon) maskSecrets(cfg *config.Config) {
	if d.opts.Secrets != nil {
		d.opts.Secrets.Set(append(policy.SecretValues(cfg, os.Getenv), d.users.secretValues()...))
	}
}

// HTTPOptions builds the HTTP face's guard for the address weft binds: a
// non-loopback address needs a bearer token, read from the variable
// security.http_token_env names, or [gateway.auth]'s OAuth tokens. The JWT
// verifier's key refreshes end with ctx.
func HTTPOptions(ctx context.Context, cfg *config.Config, listen string) (gateway.HTTPOptions, error) {
	gw := cfg.Gateway
	o := gateway.HTTPOptions{Listen: listen, Token: AdminToken(cfg), MaxConnections: gw.MaxConnections, IdleTimeout: gw.IdleTimeout.Std(),
		BodyTimeout: gw.BodyTimeout.Std(), MaxSessions: gw.MaxSessions, SessionIdleTimeout: gw.SessionIdleTimeout.Std()}
	if name := cfg.Security.HTTPTokenEnv; name != "" && o.Token == "" {
		return o, fmt.Errorf("security.http_token_env names %s, but it is empty; set it to the bearer token clients must send", name)
	}
	if cfg.Gateway.Auth != nil {
		auth, err := faceAuth(ctx, cfg.Gateway.Auth, listen, o.Token)
		if err != nil {
			return o, err
		}
		o.Auth, o.AgentOf = auth, agentOfIdentity(cfg.Gateway.Auth)
	}
	if !gateway.IsLoopbackListen(listen) && o.Token == "" && o.Auth == nil {
		return o, fmt.Errorf("listen address %s is not loopback: set security.http_token_env to a variable holding a bearer token, or listen on 127.0.0.1", listen)
	}
	return o, nil
}

// AdminToken is the bearer token the HTTP face (admin API included)
// requires, or "" when none is configured.
func AdminToken(cfg *config.Config) string {
	if cfg.Security.HTTPTokenEnv == "" {
		return ""
	}
	return os.Getenv(cfg.Security.HTTPTokenEnv)
}
