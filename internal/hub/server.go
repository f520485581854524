package hub

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// generation is one connection of a server. A config change swaps in a new
// generation while the old one finishes its calls, so that no call is lost.
type generation struct {
	conn     *upstream.Conn
	inflight atomic.Int64
	// lossCounted is set once a call has counted the connection's loss.
	lossCounted atomic.Bool
	// listed is set once a catalog build from this connection has been
	// given to the listeners: its tools are listed (Serving).
	listed atomic.Bool

	mu      sync.Mutex
	retired bool
	idle    chan struct{} // closed once retired and no call is in flight
}

// outcome classifies a call that ran on g for the breakers. A broken
// connection fails every call in flight on it, whichever call broke it (an
// oversized result, a crash): it counts as one failure, not one per call.
func (g *generation) outcome(callerCtx context.Context, err error) outcome {
	o := classify(callerCtx, err)
	if o == outcomeFailure && g.conn.Broken() && !g.lossCounted.CompareAndSwap(false, true) {
		return outcomeIgnored
	}
	return o
}

func newGeneration(conn *upstream.Conn) *generation {
	return &generation{conn: conn, idle: make(chan struct{})}
}

func (g *generation) enter() { g.inflight.Add(1) }

func (g *generation) leave() {
	if g.inflight.Add(-1) == 0 {
		g.closeIfIdle()
	}
}

// retire stops counting the generation as current; idle closes once its
// last call ends.
func (g *generation) retire() <-chan struct{} {
	g.mu.Lock()
	g.retired = true
	g.mu.Unlock()
	g.closeIfIdle()
	return g.idle
}

func (g *generation) closeIfIdle() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.retired || g.inflight.Load() != 0 {
		return
	}
	select {
	case <-g.idle:
	default:
		close(g.idle)
	}
}

// server is the hub's record of one upstream.
type server struct {
	name    string
	breaker *breaker
	tools   *toolBreakers // per-tool breakers for timeouts
	sem     chan struct{} // per-server concurrency limit; nil when unlimited

	// life ends the server's background work (reconnect loop) on removal.
	life context.Context
	end  context.CancelFunc
	// settled is closed once the first connection attempt is over (or the
	// server is removed): calls that arrive earlier wait on it.
	settled    chan struct{}
	settleOnce sync.Once
	// reconnecting is whether a reconnect loop runs for the server, under
	// the hub's mu; a later failure hands that loop its new first attempt
	// through kick instead of starting a second loop.
	reconnecting bool
	kick         chan retry

	mu          sync.Mutex
	cfg         *config.Server
	state       Status
	gen         *generation   // current connection; nil unless active or draining
	retiring    []*generation // older connections finishing their calls
	lastErr     string
	connectedAt time.Time
	retryAt     time.Time // next reconnect attempt while disconnected
	reconnects  int
}

// newServer returns a connecting server; defaults are the hub's breaker
// settings, which cfg may override.
func newServer(cfg *config.Server, defaults config.Breaker, now func() time.Time) *server {
	s := &server{name: cfg.Name, cfg: cfg, state: StatusConnecting, settled: make(chan struct{}), kick: make(chan retry, 1)}
	s.breaker, s.tools, s.sem = guards(cfg, defaults, now)
	s.life, s.end = context.WithCancel(context.Background())
	return s
}

// guards builds the breakers and the concurrency limit cfg asks for.
func guards(cfg *config.Server, defaults config.Breaker, now func() time.Time) (*breaker, *toolBreakers, chan struct{}) {
	br := defaults.For(cfg)
	var sem chan struct{}
	if cfg.MaxConcurrentCalls > 0 {
		sem = make(chan struct{}, cfg.MaxConcurrentCalls)
	}
	return newBreaker(cfg.Name, br.FailureThreshold, br.ResetTimeout.Std(), now),
		newToolBreakers(cfg.Name, br.FailureThreshold, br.ResetTimeout.Std(), now), sem
}

// reconnected closes the server's breaker: the upstream came back after a
// loss, which is better proof of health than the failures the loss caused.
func (s *server) reconnected() {
	s.mu.Lock()
	br := s.breaker
	s.mu.Unlock()
	br.Reset()
}

// markSettled ends the wait of calls for the first connection attempt.
func (s *server) markSettled() { s.settleOnce.Do(func() { close(s.settled) }) }

func (s *server) config() *config.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg
}

func (s *server) snapshot() (*upstream.Conn, Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil {
		return nil, s.state
	}
	return s.gen.conn, s.state
}

// current returns the server's connection, if any, and its state.
func (s *server) current() (*generation, Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen, s.state
}

// errConfigChanged is setActive's refusal of a connection made from a
// config the server no longer has: a swap set another while it was made,
// and the swap's connection (or its retry) serves that one.
var errConfigChanged = errors.New("the server's config changed while connecting")

// setActive installs a fresh connection made from cfg unless the server
// started draining (ErrDraining) or took another config (errConfigChanged)
// meanwhile; the caller closes a connection refused. An older connection,
// if any, is returned retired for the caller to drain.
func (s *server) setActive(conn *upstream.Conn, cfg *config.Server) (old *generation, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StatusDraining {
		return nil, ErrDraining
	}
	if s.cfg != cfg {
		return nil, errConfigChanged
	}
	old = s.gen
	if old != nil {
		s.retiring = append(s.retiring, old)
	}
	s.gen = newGeneration(conn)
	s.state, s.lastErr, s.connectedAt, s.retryAt = StatusActive, "", time.Now(), time.Time{}
	return old, nil
}

// setFailed records a failed connection attempt made from cfg and the
// attempt to come. It records nothing and returns false when the server
// took another config meanwhile: the attempt's error is not the server's.
func (s *server) setFailed(err error, cfg *config.Server, next retry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg != cfg {
		return false
	}
	if s.state != StatusDraining && s.gen == nil {
		s.state = StatusDisconnected
	}
	s.lastErr = err.Error()
	s.scheduleLocked(next)
	if needsLogin(err) && s.gen == nil && s.state != StatusDraining {
		s.state, s.lastErr = StatusNeedsLogin, needsLoginError(s.name).Error()
	}
	return true
}

// scheduleLocked records the coming reconnect attempt; s.mu is held.
func (s *server) scheduleLocked(next retry) {
	s.retryAt, s.reconnects = time.Now().Add(next.wait), next.attempt
}

// markLost records the unexpected end of connection conn and returns its
// generation for closing, or nil if conn is no longer current.
func (s *server) markLost(conn *upstream.Conn, err error, next retry) *generation {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil || s.gen.conn != conn || s.state == StatusDraining {
		return nil
	}
	g := s.gen
	s.gen, s.state, s.lastErr = nil, StatusDisconnected, err.Error()
	s.scheduleLocked(next)
	return g
}

// check fails at once unless the server is active.
func (s *server) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StatusActive:
		return nil
	case StatusDraining:
		return serverError(s.name, ErrDraining)
	case StatusConnecting:
		return serverError(s.name, wrapReason(ErrConnecting, "its first connection is under way; `weft mcp list` shows its status"))
	case StatusNeedsLogin:
		return needsLoginError(s.name)
	}
	if s.lastErr != "" {
		return serverError(s.name, wrapReason(ErrDisconnected, s.lastErr))
	}
	return serverError(s.name, ErrDisconnected)
}

// enter attaches a call to the current connection; leave must follow.
func (s *server) enter() (*generation, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == nil {
		return nil, serverError(s.name, ErrDisconnected)
	}
	s.gen.enter()
	return s.gen, nil
}

// inFlight counts calls on every connection of the server.
func (s *server) inFlight() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	if s.gen != nil {
		n = s.gen.inflight.Load()
	}
	for _, g := range s.retiring {
		n += g.inflight.Load()
	}
	return n
}

// startDrain marks the server draining, ends its background work and
// returns every connection it holds, retired.
func (s *server) startDrain() ([]*generation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StatusDraining {
		return nil, ErrAlreadyDrain
	}
	s.state = StatusDraining
	s.end()
	s.markSettled()
	gens := append([]*generation{}, s.retiring...)
	if s.gen != nil {
		gens = append(gens, s.gen)
	}
	return gens, nil
}

// forget drops a retired generation once it is closed.
func (s *server) forget(g *generation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.retiring {
		if r == g {
			s.retiring = append(s.retiring[:i], s.retiring[i+1:]...)
			return
		}
	}
	if s.gen == g {
		s.gen = nil
	}
}
