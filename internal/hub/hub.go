// Package hub is the manager of every upstream: it connects, tracks status
// and calls in flight, drains on removal, and keeps the merged catalog that
// the gateway face, the agent and plans all read. It knows nothing of them.
package hub

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// Status of one upstream.
type Status string

// The statuses a server moves through.
const (
	StatusConnecting   Status = "connecting"
	StatusActive       Status = "active"
	StatusDraining     Status = "draining"
	StatusDisconnected Status = "disconnected"
)

// Options configure a Hub.
type Options struct {
	Logger       *slog.Logger
	Separator    string
	MaxTools     int
	DrainTimeout time.Duration
	// MaxConcurrentCalls bounds calls in flight across every server (0: no
	// limit); each server may set its own limit too.
	MaxConcurrentCalls int
	// Breaker holds the default breaker settings; servers may override them.
	Breaker config.Breaker
	// Backoff bounds the reconnect delay: it starts at Min and doubles up to
	// Max, with jitter (defaults 1 s and 60 s).
	BackoffMin, BackoffMax time.Duration
	// Now is the clock of the breakers (default time.Now); tests inject one.
	Now func() time.Time
	// ArrivalWindow bounds how long the first of several servers ending
	// their first connection together (Start) waits for the others, so that
	// they cost one catalog build (default 20 ms; see arrive).
	ArrivalWindow time.Duration
	// Reserved names are weft's built-in tools: never shadowed by upstreams.
	Reserved []string
	// ToolFilter, when set, returns the tools of a server (under their own
	// names) that may be exposed, after the server's allow/deny lists; tool
	// pinning plugs in here. It gets a server's whole list at once, with
	// each tool's pin digest (computed when the upstream listed it), and runs
	// under the rebuild lock: it must not block on I/O.
	ToolFilter func(server string, tools []*mcp.Tool, pins []string) []*mcp.Tool
	Upstream   upstream.Options
	// Approvals, when set, keeps the user's approvals of a server taking
	// over a tool name another server exposes; without it the first owner
	// keeps each name for the hub's lifetime.
	Approvals NameApprovals
	// LoginStamp, when set, changes whenever a stored OAuth login changes;
	// the hub then reconnects servers that need a login.
	LoginStamp func() string
	// Instance, when set, may run a call on a connection of the caller's
	// own instead of the server's (a per-user instance, keyed by who is in
	// ctx). It returns a nil connection to use the server's, and done when
	// the call has ended. The call is admitted, limited and timed as any
	// other call of the server; the catalog still comes from the server's
	// own connection. Its ctx carries the server's timeout as its deadline
	// for a per_user server's call; for any other server's, which has no
	// instance to start, it has none, and Instance must not wait.
	Instance func(ctx context.Context, server string) (conn *upstream.Conn, done func(), err error)
	// Observer, when set, sees every tool call and server status change
	// (metrics, traces, audit log, dashboard); see observe.go.
	Observer Observer
}

// Hub owns every upstream connection.
type Hub struct {
	opts     Options
	logger   *slog.Logger
	reserved map[string]bool

	mu      sync.Mutex
	servers map[string]*server
	// draining holds removed servers until their calls end, so that their
	// status stays visible and their name can be reused at once.
	draining map[*server]bool
	closed   bool
	global   chan struct{} // global concurrency limit; nil when unlimited
	bg       sync.WaitGroup

	catalog   atomic.Pointer[Catalog]
	listenMu  sync.Mutex
	listeners []func(*Catalog)
	updated   []func(server, uri string) // see OnResourceUpdated
	rebuildMu sync.Mutex
	// rebuildWant counts rebuild requests; rebuiltUpTo (under rebuildMu) is
	// the last request a finished rebuild covered. Requests queued behind a
	// rebuild that started after them are already served, so 100 servers
	// coming up together cost a few rebuilds, not 100.
	rebuildWant atomic.Uint64
	rebuiltUpTo uint64
	owners      owners // who first exposed each tool name; under rebuildMu
	arrivals    arrivals
	// notifyMu orders listener calls, which run outside rebuildMu so that a
	// slow listener never holds up a rebuild; notified (under notifyMu) is
	// the last catalog listeners were given.
	notifyMu sync.Mutex
	notified *Catalog
	// holds counts Hold calls not yet released; while it is above zero,
	// listeners are not called (the catalog itself stays current).
	holds      atomic.Int32
	stopLogins chan struct{} // closed by Close; ends watchLogins
}

// New returns an empty hub.
func New(opts Options) *Hub {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Separator == "" {
		opts.Separator = config.DefaultSeparator
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = config.DefaultDrainTimeout
	}
	if opts.Upstream.Logger == nil {
		opts.Upstream.Logger = opts.Logger
	}
	if opts.BackoffMin <= 0 {
		opts.BackoffMin = time.Second
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ArrivalWindow <= 0 {
		opts.ArrivalWindow = arrivalWindow
	}
	h := &Hub{opts: opts, logger: opts.Logger, reserved: map[string]bool{}, servers: map[string]*server{}, draining: map[*server]bool{}}
	if opts.MaxConcurrentCalls > 0 {
		h.global = make(chan struct{}, opts.MaxConcurrentCalls)
	}
	for _, n := range opts.Reserved {
		h.reserved[n] = true
	}
	h.owners.approvals = opts.Approvals
	h.catalog.Store(buildCatalog(nil, nil, opts.Separator, opts.MaxTools, h.reserved, &h.owners, nil))
	h.stopLogins = make(chan struct{})
	if opts.LoginStamp != nil {
		h.bg.Add(1)
		go h.watchLogins(h.stopLogins)
	}
	return h
}

// Catalog returns the current snapshot; it never changes once returned.
func (h *Hub) Catalog() *Catalog { return h.catalog.Load() }

// OnChange registers f to be called with each new catalog.
func (h *Hub) OnChange(f func(*Catalog)) {
	h.listenMu.Lock()
	defer h.listenMu.Unlock()
	h.listeners = append(h.listeners, f)
}

// rebuild recomputes the catalog from the active servers and tells listeners.
func (h *Hub) rebuild() {
	built := h.rebuildLocked()
	h.notify()
	for _, g := range built {
		g.listed.Store(true)
	}
}

// notify gives listeners the newest catalog unless they have it already;
// catalogs superseded meanwhile are skipped, never delivered out of order.
func (h *Hub) notify() {
	if h.holds.Load() > 0 {
		return // the last release delivers the newest catalog
	}
	h.notifyMu.Lock()
	defer h.notifyMu.Unlock()
	cat := h.catalog.Load()
	if cat == h.notified {
		return
	}
	h.notified = cat
	h.listenMu.Lock()
	ls := append([]func(*Catalog){}, h.listeners...)
	h.listenMu.Unlock()
	for _, f := range ls {
		f(cat)
	}
}

// Hold defers listener calls until the returned release is called, so that
// a change touching several servers reaches clients as one catalog change.
// The catalog itself stays current meanwhile (calls route as usual). Holds
// nest; release is idempotent. Keep a hold short: no drain inside it.
func (h *Hub) Hold() (release func()) {
	h.holds.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			if h.holds.Add(-1) == 0 {
				h.notify()
			}
		})
	}
}

// rebuildLocked builds and stores a new catalog under rebuildMu, and
// returns the connections it was built from (none when a later rebuild
// covered this one: that rebuild's caller marks them).
func (h *Hub) rebuildLocked() (built []*generation) {
	want := h.rebuildWant.Add(1)
	h.rebuildMu.Lock()
	defer h.rebuildMu.Unlock()
	if h.rebuiltUpTo >= want {
		return nil // a rebuild that began after this request has finished
	}
	h.rebuiltUpTo = h.rebuildWant.Load() // before reading any state
	var sources []source
	for _, s := range h.visible() {
		if g, st := s.current(); g != nil && (st == StatusActive || st == StatusDraining) {
			cfg := s.config()
			sources = append(sources, source{
				name: s.name, namespace: cfg.Namespace(), allowed: cfg.AllowedTools,
				denied: cfg.DeniedTools, inv: filterTools(s.name, g.conn.Inventory(), h.opts.ToolFilter),
			})
			built = append(built, g)
		}
	}
	cat := buildCatalog(h.catalog.Load(), sources, h.opts.Separator, h.opts.MaxTools, h.reserved, &h.owners, h.roster())
	for _, c := range cat.Clashes {
		h.logger.Warn("catalog clash", "detail", c)
	}
	h.catalog.Store(cat)
	return built
}

// Refresh rebuilds the catalog, for when something the ToolFilter decides
// on has changed (an approved tool pin).
func (h *Hub) Refresh() { h.rebuild() }

// roster maps every configured server to its namespace.
func (h *Hub) roster() map[string]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]string, len(h.servers))
	for name, s := range h.servers {
		out[name] = s.config().Namespace()
	}
	return out
}

// visible lists the configured servers, plus removed ones still draining
// under a name nobody took since, by name.
func (h *Hub) visible() []*server {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*server, 0, len(h.servers)+len(h.draining))
	for _, n := range h.sortedNames() {
		out = append(out, h.servers[n])
	}
	for s := range h.draining {
		if _, taken := h.servers[s.name]; !taken {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// sortedNames lists servers by name; callers hold h.mu.
func (h *Hub) sortedNames() []string {
	names := make([]string, 0, len(h.servers))
	for n := range h.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Config returns the configuration a server runs with.
func (h *Hub) Config(name string) (*config.Server, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.servers[name]
	if !ok {
		return nil, false
	}
	return s.config(), true
}

// Names lists the servers by name.
func (h *Hub) Names() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sortedNames()
}

// lookup returns the named server.
func (h *Hub) lookup(name string) (*server, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.servers[name]; ok {
		return s, nil
	}
	for s := range h.draining {
		if s.name == name {
			return s, nil
		}
	}
	return nil, serverError(name, ErrNotFound)
}
