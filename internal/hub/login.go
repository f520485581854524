package hub

import (
	"context"
	"errors"
	"time"

	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/upstream"
)

// StatusNeedsLogin is a remote server whose OAuth login is missing or could
// not be refreshed: only `weft mcp login NAME` fixes it, so weft does not
// retry it on a timer but as soon as the stored login changes.
const StatusNeedsLogin Status = "needs_login"

// loginPoll is how often the hub looks for a login or logout made by
// another weft process.
const loginPoll = time.Second

func needsLogin(err error) bool { return errors.Is(err, oauth.ErrNeedsLogin) }

// needsLoginError is what a call to a server that needs a login returns.
func needsLoginError(name string) error { return &oauth.NeedsLoginError{Server: name} }

// watchLogins runs until stop closes: whenever the token store changes, a
// server that needs a login is connected again, and every active server is
// pinged so that one whose login was removed shows it at once.
func (h *Hub) watchLogins(stop <-chan struct{}) {
	defer h.bg.Done()
	last := h.opts.LoginStamp()
	tick := time.NewTicker(loginPoll)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if now := h.opts.LoginStamp(); now != last {
			last = now
			h.loginsChanged()
		}
	}
}

func (h *Hub) loginsChanged() {
	for _, s := range h.visible() {
		conn, st := s.snapshot()
		switch {
		case st == StatusNeedsLogin:
			next := h.retryNo(1)
			if err := h.connect(s.life, s, s.config(), next); err == nil {
				h.rebuild()
			} else {
				h.startReconnect(s, next) // unless the login was refused again
			}
		case st == StatusActive && conn != nil:
			ctx, cancel := context.WithTimeout(s.life, s.config().Timeout())
			err := conn.Ping(ctx)
			cancel()
			if needsLogin(err) {
				h.markNeedsLogin(s, conn, err)
			}
		}
	}
}

// markNeedsLogin takes a server whose login was refused out of service
// until the next login; its connection drains and closes.
func (h *Hub) markNeedsLogin(s *server, conn *upstream.Conn, err error) {
	s.mu.Lock()
	if s.gen == nil || s.gen.conn != conn || s.state == StatusDraining {
		s.mu.Unlock()
		return
	}
	g := s.gen
	s.gen, s.state, s.lastErr = nil, StatusNeedsLogin, needsLoginError(s.name).Error()
	s.mu.Unlock()
	h.logger.Warn("upstream needs a login", "server", s.name, "err", err)
	h.retireInBackground(s, g)
	h.rebuild()
}
