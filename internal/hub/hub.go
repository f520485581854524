// Package hub is the manager of every upstream: it connects, tracks status
// and calls in flight, drains on removal, and keeps the merged catalog that
// the gateway face, the agent and plans all read. It knows nothing of them.
package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// Status of one upstream (SPEC G5).
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
	// Reserved names are weft's built-in tools: never shadowed by upstreams.
	Reserved []string
	Upstream upstream.Options
}

// Hub owns every upstream connection.
type Hub struct {
	opts     Options
	logger   *slog.Logger
	reserved map[string]bool

	mu      sync.Mutex
	servers map[string]*server
	closed  bool

	catalog   atomic.Pointer[Catalog]
	listenMu  sync.Mutex
	listeners []func(*Catalog)
	rebuildMu sync.Mutex
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
	h := &Hub{opts: opts, logger: opts.Logger, reserved: map[string]bool{}, servers: map[string]*server{}}
	for _, n := range opts.Reserved {
		h.reserved[n] = true
	}
	h.catalog.Store(buildCatalog(nil, opts.Separator, opts.MaxTools, h.reserved))
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
	h.rebuildMu.Lock()
	defer h.rebuildMu.Unlock()
	h.mu.Lock()
	names := h.sortedNames()
	var sources []source
	for _, n := range names {
		s := h.servers[n]
		if conn, st := s.snapshot(); conn != nil && (st == StatusActive || st == StatusDraining) {
			sources = append(sources, source{
				name: n, namespace: s.cfg.Namespace(), allowed: s.cfg.AllowedTools,
				denied: s.cfg.DeniedTools, inv: conn.Inventory(),
			})
		}
	}
	h.mu.Unlock()
	cat := buildCatalog(sources, h.opts.Separator, h.opts.MaxTools, h.reserved)
	for _, c := range cat.Clashes {
		h.logger.Warn("catalog clash", "detail", c)
	}
	h.catalog.Store(cat)
	h.listenMu.Lock()
	ls := append([]func(*Catalog){}, h.listeners...)
	h.listenMu.Unlock()
	for _, f := range ls {
		f(cat)
	}
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

// Add connects a new upstream and registers its items. The entry stays
// listed (as disconnected, with the reason) when the connection fails, so
// that the failure is visible; the error is returned as well.
func (h *Hub) Add(ctx context.Context, cfg *config.Server) (ServerStatus, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return ServerStatus{}, ErrHubClosed
	}
	if _, ok := h.servers[cfg.Name]; ok {
		h.mu.Unlock()
		return ServerStatus{}, serverError(cfg.Name, ErrExists)
	}
	s := newServer(cfg.Clone())
	h.servers[cfg.Name] = s
	h.mu.Unlock()

	err := h.connect(ctx, s)
	h.rebuild()
	return s.status(), err
}

func (h *Hub) connect(ctx context.Context, s *server) error {
	opts := h.opts.Upstream
	opts.OnInventory = h.rebuild
	opts.OnClosed = func(err error) { h.lost(s, err) }
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout())
	defer cancel()
	conn, err := upstream.Dial(ctx, s.cfg, opts)
	if err != nil {
		s.setFailed(err)
		h.logger.Warn("upstream not connected", "server", s.cfg.Name, "err", err)
		return err
	}
	if !s.setActive(conn) {
		// Removed while connecting: nobody else will close it.
		conn.Close(context.Background())
		return serverError(s.cfg.Name, ErrNotFound)
	}
	h.logger.Info("upstream active", "server", s.cfg.Name, "tools", len(conn.Inventory().Tools))
	return nil
}

// lost handles a session that ended on its own (crash, dropped connection).
func (h *Hub) lost(s *server, err error) {
	conn := s.markLost(err)
	if conn == nil {
		return
	}
	go conn.Close(context.Background())
	h.rebuild()
}

// Remove drains a server and removes it (SPEC G7): new calls are refused at
// once, calls in flight finish (up to the drain timeout), then the session
// and its process group end and its items leave the catalog.
func (h *Hub) Remove(ctx context.Context, name string) error {
	h.mu.Lock()
	s, ok := h.servers[name]
	h.mu.Unlock()
	if !ok {
		return serverError(name, ErrNotFound)
	}
	drained, err := s.startDrain()
	if err != nil {
		return serverError(name, err)
	}
	timer := time.NewTimer(h.opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		h.logger.Warn("drain timed out; closing with calls in flight", "server", name, "in_flight", s.inflight.Load())
	case <-ctx.Done():
		h.logger.Warn("drain cut short; closing with calls in flight", "server", name, "in_flight", s.inflight.Load())
	}
	if conn := s.detach(); conn != nil {
		conn.Close(context.Background())
	}
	h.mu.Lock()
	if h.servers[name] == s {
		delete(h.servers, name)
	}
	h.mu.Unlock()
	h.rebuild()
	h.logger.Info("upstream removed", "server", name)
	return nil
}

// Close removes every server, draining each for at most ctx's lifetime.
func (h *Hub) Close(ctx context.Context) {
	h.mu.Lock()
	h.closed = true
	names := h.sortedNames()
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = h.Remove(ctx, n)
		}()
	}
	wg.Wait()
}

// Config returns the configuration a server runs with.
func (h *Hub) Config(name string) (*config.Server, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.servers[name]
	if !ok {
		return nil, false
	}
	return s.cfg, true
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
	s, ok := h.servers[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return s, nil
}
