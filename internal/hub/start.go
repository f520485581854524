package hub

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/naming"
)

// Start registers every enabled server as connecting and connects each in
// the background, so that the faces can answer clients at once: one slow or
// hung upstream never holds back the others. Each server's tools join the
// catalog (and listeners hear of it) as soon as it is active; a server that
// fails is retried with backoff as with Add. Servers already registered are
// left alone. Start returns immediately; Settle waits for the first attempts.
func (h *Hub) Start(servers map[string]*config.Server) {
	names := make([]string, 0, len(servers))
	for name, cfg := range servers {
		if cfg.IsEnabled() {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	slots := make(chan struct{}, startSlots)
	for _, name := range names {
		if _, ok := h.servers[name]; ok {
			continue
		}
		s := newServer(servers[name].Clone(), h.opts.Breaker, h.opts.Now)
		h.servers[name] = s
		h.arrivals.starts(1)
		h.bg.Add(1)
		go func() {
			defer h.bg.Done()
			h.slowStart(s, slots)
		}()
	}
}

// startSlots bounds how many first connections start at once, and
// slotHold how long one may hold its slot: a hundred children launched
// together would take the CPU from the faces that must answer at once, while
// a hung server gives its slot up after slotHold and delays nobody for long.
const (
	startSlots = 16
	slotHold   = 250 * time.Millisecond
)

// slowStart makes the first connection of s once a start slot is free.
func (h *Hub) slowStart(s *server, slots chan struct{}) {
	select {
	case slots <- struct{}{}:
	case <-s.life.Done():
		s.markSettled()
		h.abandonStart()
		return
	}
	var once sync.Once
	release := func() { once.Do(func() { <-slots }) }
	hold := time.AfterFunc(slotHold, release)
	h.firstConnect(s)
	hold.Stop()
	release()
	h.arrive(s)
}

// firstConnect makes the first connection attempt of a server registered by
// Start; it ends early when the server is removed or the hub closes. The
// caller then hands s to arrive, which builds the catalog and settles s.
func (h *Hub) firstConnect(s *server) {
	next := h.retryNo(1)
	if err := h.connect(s.life, s, s.config(), next); err != nil {
		h.startReconnect(s, next)
	}
}

// Settle waits until no server is on its first connection attempt (or ctx
// ends) and returns the servers that failed it, with their errors. One-shot
// commands use it to see every upstream before they start; the faces don't.
func (h *Hub) Settle(ctx context.Context) map[string]error {
	for _, s := range h.visible() {
		select {
		case <-s.settled:
		case <-ctx.Done():
			return h.failures()
		}
	}
	return h.failures()
}

// failures maps each disconnected server to its last error.
func (h *Hub) failures() map[string]error {
	out := map[string]error{}
	for _, st := range h.List() {
		if st.Status == StatusDisconnected && st.LastError != "" {
			out[st.Name] = fmt.Errorf("%s", st.LastError)
		}
	}
	return out
}

// AwaitTool looks up an exposed tool name. While a server whose namespace
// could hold the name is still on its first connection attempt, it waits
// for that server (at most the server's timeout_ms, and ctx), so that a
// client calling right after weft started is served instead of refused.
// The error says which server is not ready and why, when one is to blame.
func (h *Hub) AwaitTool(ctx context.Context, name string) (*Tool, error) {
	start := time.Now()
	var timer <-chan time.Time
	for {
		if t, ok := h.Catalog().Tool(name); ok {
			return t, nil
		}
		s := h.connectingOwner(name)
		if s == nil {
			break
		}
		if timer == nil {
			t := time.NewTimer(s.config().Timeout())
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-s.settled:
			continue
		case <-ctx.Done():
		case <-timer:
		}
		waited := time.Since(start).Round(time.Millisecond)
		return nil, fmt.Errorf("%w %q: %w", ErrUnknownTool, name, serverError(s.name,
			wrapReason(ErrConnecting, fmt.Sprintf("waited %v for its first connection; `weft mcp list` shows its status", waited))))
	}
	if err := h.Unavailable(name); err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrUnknownTool, name, err)
	}
	return nil, fmt.Errorf("%w %q: not in the catalog (list tools or use weft__search_tools)", ErrUnknownTool, name)
}

// connectingOwner returns a server on its first connection attempt whose
// namespace could hold name (an empty namespace could hold any), or nil.
func (h *Hub) connectingOwner(name string) *server {
	for _, s := range h.visible() {
		select {
		case <-s.settled:
			continue
		default:
		}
		if naming.InNamespace(name, s.config().Namespace(), h.opts.Separator) {
			return s
		}
	}
	return nil
}
