// Package upstream connects weft to one upstream MCP server over stdio,
// Streamable HTTP or SSE, keeps its inventory current and relays the
// server-to-client traffic of each call to the client that caused it.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// DefaultProbeTimeout bounds the attempt with the newest protocol before weft
// falls back to the legacy handshake.
const DefaultProbeTimeout = 5 * time.Second

// exitNoticeDelay is how long a failed handshake waits to see whether the
// child exited on its own, which changes what the error should say.
const exitNoticeDelay = 200 * time.Millisecond

// Options tune a connection. The zero value is usable.
type Options struct {
	Logger          *slog.Logger
	MaxMessageBytes int
	ProbeTimeout    time.Duration
	// Environ is the environment stdio children are built from (default os.Environ).
	Environ func() []string
	// ExtraEnv is added to every stdio child's environment.
	ExtraEnv map[string]string
	// OnInventory is called after the inventory changed on the upstream's
	// list_changed notification and was re-listed.
	OnInventory func()
	// OnResourceUpdated is called with the URI of each
	// notifications/resources/updated the upstream sends.
	OnResourceUpdated func(uri string)
	// OnClosed is called once, with the connection, if the session ends
	// without Close (crash, drop, failed keepalive pings).
	OnClosed func(c *Conn, err error)
	// DialControl, when set, vets every address an HTTP upstream connection
	// dials (security.block_private_urls re-checks it there).
	DialControl func(network, address string, c syscall.RawConn) error
	// KeepAlive is the interval of pings that detect a hung upstream; two
	// missed pings end the session (0: no pings).
	KeepAlive time.Duration
	// RelistInterval is the least time between two re-lists after
	// list_changed (default DefaultRelistInterval).
	RelistInterval time.Duration
	// OAuth returns the OAuth handler of a remote entry (nil: none).
	OAuth func(cfg *config.Server) auth.OAuthHandler
}

// Info describes the server at the other end, from its handshake.
type Info struct {
	Name            string
	Version         string
	Instructions    string
	ProtocolVersion string
	Capabilities    *mcp.ServerCapabilities
}

// Inventory is everything an upstream lists.
type Inventory struct {
	Tools []*mcp.Tool
	// Digests holds each listed tool's digests, by the tool.
	Digests   map[*mcp.Tool]Digest
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
}

// Conn is a live session with one upstream.
type Conn struct {
	cfg     *config.Server
	opts    Options
	logger  *slog.Logger
	session *mcp.ClientSession
	proc    *process // nil unless stdio
	cancel  context.CancelFunc
	router  *router
	order   *noteOrder // progress and logs before results; see ordering.go
	raw     *rawConn   // weft's own calls on the connection (rawconn.go); nil unless stdio
	poster  *posted    // weft's own POSTs (httppost.go); nil unless Streamable HTTP
	info    Info

	mu  sync.RWMutex
	inv Inventory

	relist    chan struct{}
	closing   chan struct{}
	life      context.Context // ends when Close starts
	endLife   context.CancelFunc
	closeOnce sync.Once
	wg        sync.WaitGroup
	// hung is set when keepAlive closed the session for missed pings.
	hung atomic.Bool
	// refused is the last 401 or 403 the remote server answered (authhint.go).
	refused atomic.Int32
	// ended is set when the session has ended, for whatever reason.
	ended atomic.Bool
}

// Dial connects to the upstream described by cfg, completes the handshake and
// lists everything it offers. ctx bounds the whole of it.
func Dial(ctx context.Context, cfg *config.Server, opts Options) (*Conn, error) {
	c := newConn(cfg, opts)
	if err := c.handshake(ctx); err != nil {
		c.endLife()
		c.poster.closeIdle(nil)
		return nil, err
	}
	if err := c.listWithLogs(ctx); err != nil {
		c.Close(context.Background())
		return nil, fmt.Errorf("list %s: %w", cfg.Name, err)
	}
	c.wg.Add(2)
	go c.relistLoop()
	go c.watch()
	if c.needsOwnKeepAlive() {
		c.wg.Add(1)
		go c.keepAlive()
	}
	return c, nil
}

// newConn is a Conn before its handshake, with the options' defaults filled.
func newConn(cfg *config.Server, opts Options) *Conn {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = config.DefaultMaxMessageBytes
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = DefaultProbeTimeout
	}
	c := &Conn{
		cfg:     cfg,
		opts:    opts,
		logger:  opts.Logger.With("server", cfg.Name),
		router:  newRouter(),
		relist:  make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	c.life, c.endLife = context.WithCancel(context.Background())
	return c
}

var errProbeTimeout = errors.New("probe timed out")

// attempt runs one connect. The session's context must outlive the handshake
// (SSE sessions and children die with it), so the handshake is bounded by a
// timer that cancels it rather than by a derived deadline.
func (c *Conn) attempt(ctx context.Context, version string, probe time.Duration) error {
	lifeCtx, cancel := context.WithCancel(context.Background())
	var probed atomic.Bool
	var timer *time.Timer
	if probe > 0 {
		timer = time.AfterFunc(probe, func() { probed.Store(true); cancel() })
	}
	stopOuter := context.AfterFunc(ctx, cancel)
	order := newNoteOrder()
	transport, proc, err := c.transport(order)
	if err != nil {
		cancel()
		stopOuter()
		return err
	}
	client := c.client()
	client.AddReceivingMiddleware(order.middleware)
	cs, err := client.Connect(lifeCtx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	timedOut := timer != nil && !timer.Stop() && probed.Load()
	stopped := stopOuter()
	if err == nil && (timedOut || !stopped) {
		_ = cs.Close()
		err = context.Canceled
	}
	if err != nil {
		cancel()
		// Whether the child ended on its own, before weft stops it: a child
		// that exits makes the handshake fail just before it is reaped.
		exitedFirst := proc != nil && !timedOut && proc.awaitExit(exitNoticeDelay)
		if proc != nil {
			proc.stop(context.Background())
		}
		switch {
		case timedOut:
			return errProbeTimeout
		case ctx.Err() != nil:
			return fmt.Errorf("connect %s: %w", c.cfg.Name, ctx.Err())
		case exitedFirst:
			if tail := proc.stderrSuffix(); tail != "" {
				return fmt.Errorf("connect %s: the command exited during the handshake (%s)%s", c.cfg.Name, proc.exitStatus(), tail)
			}
			return fmt.Errorf("connect %s: the command exited during the handshake (%s) and wrote nothing to stderr; check that it is an MCP server speaking stdio", c.cfg.Name, proc.exitStatus())
		case proc != nil:
			return fmt.Errorf("connect %s: %w%s", c.cfg.Name, c.authHint(err), proc.stderrSuffix())
		}
		return fmt.Errorf("connect %s: %w", c.cfg.Name, c.authHint(err))
	}
	c.session, c.proc, c.cancel, c.order, c.raw = cs, proc, cancel, order, rawConnOf(transport)
	res := cs.InitializeResult()
	c.info = Info{ProtocolVersion: res.ProtocolVersion, Instructions: res.Instructions, Capabilities: res.Capabilities}
	if res.ServerInfo != nil {
		c.info.Name, c.info.Version = res.ServerInfo.Name, res.ServerInfo.Version
	}
	if c.info.Capabilities == nil {
		c.info.Capabilities = &mcp.ServerCapabilities{}
	}
	return nil
}

// watch notices a session that ends without Close and reports it once.
func (c *Conn) watch() {
	defer c.wg.Done()
	err := c.session.Wait()
	c.ended.Store(true)
	select {
	case <-c.closing:
		return
	default:
	}
	if err == nil {
		err = mcp.ErrConnectionClosed
	}
	if c.proc != nil && c.proc.awaitExit(killGrace) {
		err = fmt.Errorf("process exited: %v", c.proc.err)
	}
	if c.hung.Load() {
		err = ErrHung
	}
	c.logger.Warn("upstream session ended", "err", err)
	if c.opts.OnClosed != nil {
		c.opts.OnClosed(c, err)
	}
}

// Close ends the session and, for stdio, the child's whole process group.
// It returns when both are gone or ctx ends, and in any case within a few
// kill graces: a server that ignores every request to end cannot hold it.
func (c *Conn) Close(ctx context.Context) {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.endLife()
		c.router.closeAll()
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = c.session.Close()
		}()
		// An HTTP server may hold its DELETE until its own handlers end;
		// weft does not wait on it longer than it would on a child. The
		// wait counts from here, beside the child's stop, not after it:
		// one grace for both, not one after the other.
		timer := time.NewTimer(killGrace)
		defer timer.Stop()
		if c.proc != nil {
			c.proc.stop(ctx)
		}
		select {
		case <-done:
		case <-ctx.Done():
		case <-timer.C:
			c.logger.Warn("the server did not end its session in time; dropping the connection")
		}
		c.cancel()
		c.poster.closeIdle(nil) // the pool's, shared with go-sdk's client
	})
	c.awaitGoroutines()
}

// awaitGoroutines waits for the connection's goroutines, at most killGrace:
// they end when the session does, which a cut pipe guarantees for a child
// (see startProcess), but Close promises its callers (removal, reload,
// shutdown) a bounded wait whatever the other end does.
func (c *Conn) awaitGoroutines() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.wg.Wait()
	}()
	timer := time.NewTimer(killGrace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		c.logger.Warn("the connection's session has not ended; leaving it to end in the background")
	}
}

// Broken reports whether the connection has failed or ended: a request
// that failed on a broken connection may have failed only because of it.
// On stdio it is set before the SDK fails the requests in flight; on HTTP
// once the session has ended.
func (c *Conn) Broken() bool { return c.ended.Load() || c.order.readFailed.Load() }

// Info returns what the server said about itself in the handshake.
func (c *Conn) Info() Info { return c.info }

// Inventory returns the current lists (shared; do not modify).
func (c *Conn) Inventory() Inventory {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.inv
}

// Ping checks the session is alive.
func (c *Conn) Ping(ctx context.Context) error { return c.session.Ping(ctx, nil) }
