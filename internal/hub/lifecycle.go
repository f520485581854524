package hub

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// Add connects a new upstream and registers its items. When the connection
// fails the entry stays listed as disconnected, with the reason, and is
// retried with backoff; the error is returned as well.
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
	s := newServer(cfg.Clone(), h.opts.Breaker, h.opts.Now)
	h.servers[cfg.Name] = s
	h.mu.Unlock()

	defer s.markSettled()
	next := h.retryNo(1)
	err := h.connect(ctx, s, s.config(), next)
	if err != nil {
		h.startReconnect(s, next)
	}
	h.rebuild()
	return s.status(), err
}

// dial opens a connection for s with cfg, bounded by the server's timeout.
func (h *Hub) dial(ctx context.Context, s *server, cfg *config.Server) (*upstream.Conn, error) {
	opts := h.opts.Upstream
	opts.OnInventory = h.rebuild
	opts.OnResourceUpdated = func(uri string) { h.resourceUpdated(s.name, uri) }
	opts.OnClosed = func(c *upstream.Conn, err error) { h.lost(s, c, err) }
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout())
	defer cancel()
	return upstream.Dial(ctx, cfg, opts)
}

// connect dials and installs the connection; an older connection is drained
// in the background. When the dial fails, next is recorded as the server's
// coming reconnect attempt; the caller starts it.
func (h *Hub) connect(ctx context.Context, s *server, cfg *config.Server, next retry) error {
	s.mu.Lock()
	before := !s.connectedAt.IsZero()
	s.mu.Unlock()
	conn, err := h.dial(ctx, s, cfg)
	if err != nil {
		if !s.setFailed(err, cfg, next) {
			h.logger.Debug("an attempt with a replaced config failed", "server", s.name, "err", err)
			return nil // a swap's connection, or its retry, serves the new config
		}
		h.logger.Warn("upstream not connected", "server", s.name, "err", err)
		h.serverChanged(s, false)
		return err
	}
	old, err := s.setActive(conn, cfg)
	if err != nil {
		conn.Close(context.Background()) // nobody else will
		if errors.Is(err, errConfigChanged) {
			return nil // a swap's connection, or its retry, serves the new config
		}
		return serverError(s.name, ErrNotFound) // removed while connecting
	}
	if old != nil {
		h.retireInBackground(s, old)
	}
	h.logger.Info("upstream active", "server", s.name, "tools", len(conn.Inventory().Tools))
	h.serverChanged(s, before)
	return nil
}

// lost handles a session that ended on its own (crash, dropped connection,
// failed pings): the server is disconnected and reconnected with backoff.
func (h *Hub) lost(s *server, conn *upstream.Conn, err error) {
	next := h.retryNo(1)
	g := s.markLost(conn, err, next)
	if g == nil {
		return
	}
	// Tracked, so Close waits for the child's end (after Close began,
	// Remove's own close of the server covers it).
	h.mu.Lock()
	tracked := !h.closed
	if tracked {
		h.bg.Add(1)
	}
	h.mu.Unlock()
	go func() {
		if tracked {
			defer h.bg.Done()
		}
		conn.Close(context.Background())
	}()
	h.serverChanged(s, false)
	h.rebuild()
	h.startReconnect(s, next)
}

// retry is a reconnect attempt to come: its number (1 for the first after a
// failure or a loss) and the backoff before it. It is recorded on the server
// under the same lock as the state that calls for it, so that a status never
// shows a disconnected server without its next attempt.
type retry struct {
	attempt int
	wait    time.Duration
}

// retryNo returns attempt n: BackoffMin doubled for each attempt before it,
// at most BackoffMax, with jitter.
func (h *Hub) retryNo(n int) retry {
	delay := h.opts.BackoffMin
	for i := 1; i < n && delay < h.opts.BackoffMax; i++ {
		delay *= 2
	}
	return retry{attempt: n, wait: jitter(min(delay, h.opts.BackoffMax))}
}

// startReconnect retries the connection of s with exponential backoff and
// jitter, from attempt first (already recorded on s), until it succeeds or
// the server is removed. A server has one loop at most: when one runs, it
// starts over from first.
func (h *Hub) startReconnect(s *server, first retry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, st := s.snapshot(); h.closed || s.life.Err() != nil || st == StatusNeedsLogin {
		return // a login, not a timer, brings a needs_login server back
	}
	if s.reconnecting {
		select {
		case <-s.kick: // an older start the loop has not taken yet
		default:
		}
		s.kick <- first
		return
	}
	s.reconnecting = true
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		h.reconnectLoop(s, first)
	}()
}

func (h *Hub) reconnectLoop(s *server, r retry) {
	for s.life.Err() == nil {
		next, again := h.reconnectStep(s, r)
		if !again {
			if next, again = h.endReconnect(s); !again {
				return
			}
		}
		r = next
	}
}

// reconnectStep waits for attempt r and makes it. It returns the attempt to
// make next, or false once the server needs none: connected (by this attempt
// or a config swap), draining, removed, or waiting for a login.
func (h *Hub) reconnectStep(s *server, r retry) (retry, bool) {
	timer := time.NewTimer(r.wait)
	defer timer.Stop()
	select {
	case <-s.life.Done():
		return retry{}, false
	case first := <-s.kick:
		return first, true
	case <-timer.C:
	}
	if _, st := s.snapshot(); st != StatusDisconnected {
		return retry{}, false
	}
	next := h.retryNo(r.attempt + 1)
	err := h.connect(s.life, s, s.config(), next)
	if err == nil {
		s.reconnected()
		h.rebuild()
		return retry{}, false
	}
	return next, !needsLogin(err)
}

// endReconnect ends the loop of s unless a start arrived meanwhile, whose
// first attempt it returns.
func (h *Hub) endReconnect(s *server) (retry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case r := <-s.kick:
		return r, true
	default:
		s.reconnecting = false
		return retry{}, false
	}
}

// jitter spreads a delay over ±20% so that many upstreams that failed
// together do not retry together.
func jitter(d time.Duration) time.Duration {
	spread := int64(d) / 5
	if spread <= 0 {
		return d
	}
	return d - time.Duration(spread) + time.Duration(rand.Int64N(2*spread+1))
}

// Swap replaces a server's configuration without losing calls: a new
// connection is made first; once it is up, new calls go to it while the old
// connection finishes its calls (drain) and closes. If the new connection
// fails, the old one drains all the same, the server shows the error and is
// retried with backoff: the config, not the old process, is the truth.
func (h *Hub) Swap(ctx context.Context, cfg *config.Server) (ServerStatus, error) {
	s, err := h.lookupConfigured(cfg.Name)
	if err != nil {
		return ServerStatus{}, err
	}
	next := cfg.Clone()
	conn, err := h.dial(ctx, s, next)
	s.mu.Lock()
	if s.state == StatusDraining {
		s.mu.Unlock()
		if conn != nil {
			conn.Close(context.Background())
		}
		return ServerStatus{}, serverError(cfg.Name, ErrDraining)
	}
	s.cfg = next
	s.breaker, s.tools, s.sem = guards(next, h.opts.Breaker, h.opts.Now)
	s.mu.Unlock()
	if err != nil {
		h.failSwap(s, err)
		return s.status(), err
	}
	old, err := s.setActive(conn, next)
	if err != nil {
		conn.Close(context.Background()) // nobody else will
		if errors.Is(err, errConfigChanged) {
			return s.status(), nil // a later swap's config is the server's
		}
		return ServerStatus{}, serverError(cfg.Name, err) // removed meanwhile
	}
	if old != nil {
		h.retireInBackground(s, old)
	}
	h.serverChanged(s, false)
	h.rebuild()
	h.logger.Info("upstream swapped", "server", s.name, "tools", len(conn.Inventory().Tools))
	return s.status(), nil
}

// failSwap retires the current connection of s after a failed swap; the
// server is retried with backoff, or waits for a login if it needs one.
func (h *Hub) failSwap(s *server, err error) {
	s.mu.Lock()
	old := s.gen
	if old != nil {
		s.retiring = append(s.retiring, old)
		s.gen = nil
	}
	next := h.retryNo(1)
	s.state, s.lastErr = StatusDisconnected, err.Error()
	s.scheduleLocked(next)
	if needsLogin(err) { // as a failed Add shows it: only a login helps
		s.state, s.lastErr = StatusNeedsLogin, needsLoginError(s.name).Error()
	}
	s.mu.Unlock()
	if old != nil {
		h.retireInBackground(s, old)
	}
	h.serverChanged(s, false)
	h.rebuild()
	h.startReconnect(s, next)
}

// retireInBackground drains an old connection and closes it.
func (h *Hub) retireInBackground(s *server, g *generation) {
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		h.drainAndClose(context.Background(), s, []*generation{g})
	}()
}

// drainAndClose waits until the generations have no call in flight, at most
// the drain timeout (or until ctx ends), then closes them.
func (h *Hub) drainAndClose(ctx context.Context, s *server, gens []*generation) {
	dctx, cancel := context.WithTimeout(ctx, h.opts.DrainTimeout)
	defer cancel()
	for _, g := range gens {
		select {
		case <-g.retire():
			continue
		case <-dctx.Done():
		}
		reason := "drain timed out; closing with calls in flight"
		if ctx.Err() != nil {
			reason = "drain cut short; closing with calls in flight"
		}
		h.logger.Warn(reason, "server", s.name, "in_flight", s.inFlight())
		for _, rest := range gens {
			rest.retire()
		}
		break
	}
	var wg sync.WaitGroup
	for _, g := range gens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.conn.Close(context.Background())
			s.forget(g)
		}()
	}
	wg.Wait()
}

// lookupConfigured returns a configured (not draining-removed) server.
func (h *Hub) lookupConfigured(name string) (*server, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.servers[name]; ok {
		return s, nil
	}
	return nil, serverError(name, ErrNotFound)
}
