package hub

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// server is the hub's record of one upstream.
type server struct {
	cfg      *config.Server
	inflight atomic.Int64

	mu          sync.Mutex
	state       Status
	conn        *upstream.Conn
	lastErr     string
	connectedAt time.Time
	drained     chan struct{} // closed when draining and inflight reaches 0
}

func newServer(cfg *config.Server) *server {
	return &server{cfg: cfg, state: StatusConnecting}
}

func (s *server) snapshot() (*upstream.Conn, Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn, s.state
}

// setActive installs a fresh connection unless the server started draining
// meanwhile; it reports whether the connection was taken.
func (s *server) setActive(conn *upstream.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StatusDraining {
		return false
	}
	s.conn, s.state, s.lastErr, s.connectedAt = conn, StatusActive, "", time.Now()
	return true
}

func (s *server) setFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StatusDraining {
		s.state = StatusDisconnected
	}
	s.lastErr = err.Error()
}

// markLost records an unexpected end of the session and returns the dead
// connection for closing, or nil if it was already detached.
func (s *server) markLost(err error) *upstream.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conn := s.conn
	if conn == nil || s.state == StatusDraining {
		return nil
	}
	s.conn, s.state, s.lastErr = nil, StatusDisconnected, err.Error()
	return conn
}

// begin admits a call: it fails at once unless the server is active, and
// otherwise counts the call in flight until the returned func is called.
func (s *server) begin() (*upstream.Conn, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case StatusDraining:
		return nil, nil, serverError(s.cfg.Name, ErrDraining)
	case StatusActive:
	default:
		msg := ErrDisconnected
		if s.lastErr != "" {
			return nil, nil, serverError(s.cfg.Name, wrapReason(msg, s.lastErr))
		}
		return nil, nil, serverError(s.cfg.Name, msg)
	}
	s.inflight.Add(1)
	var once sync.Once
	return s.conn, func() { once.Do(s.end) }, nil
}

func (s *server) end() {
	if s.inflight.Add(-1) != 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.drained != nil && s.inflight.Load() == 0 {
		select {
		case <-s.drained:
		default:
			close(s.drained)
		}
	}
}

// startDrain marks the server draining and returns a channel closed once no
// call is in flight.
func (s *server) startDrain() (<-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StatusDraining {
		return nil, ErrAlreadyDrain
	}
	s.state = StatusDraining
	s.drained = make(chan struct{})
	if s.inflight.Load() == 0 {
		close(s.drained)
	}
	return s.drained, nil
}

// detach hands over the connection for closing.
func (s *server) detach() *upstream.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	conn := s.conn
	s.conn = nil
	return conn
}
