package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/weft-dev/weft/internal/config"
)

// ErrNotProtected reports a server that accepted a request without a token.
var ErrNotProtected = errors.New("the server does not ask for a login")

// initializeBody is a harmless first request: a protected server refuses
// it with 401 and its OAuth challenge before reading it.
const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"weft","version":"login"}}}`

// Login runs the server's login flow now, before any session: it sends one
// request without a token and answers the server's 401 with the
// authorization flow (interactive, so the manager needs a Login), then
// stores the tokens. The handshake that follows uses them, so a login that
// takes minutes in a browser is not cut short by the handshake's timers.
func (m *Manager) Login(ctx context.Context, cfg *config.Server) error {
	if m.login == nil && cfg.OAuth.EffectiveGrant() == config.GrantAuthorizationCode {
		return errors.New("no interactive login available here")
	}
	hh := m.Handler(cfg)
	h, ok := hh.(*handler)
	if !ok {
		return fmt.Errorf("%s: weft manages no login for it (a stdio server, or one with its own Authorization header)", cfg.Name)
	}
	req, err := probeRequest(ctx, cfg, m.getenv)
	if err != nil {
		return err
	}
	resp, err := h.authClient(cfg.Target).Do(req)
	if err != nil {
		return fmt.Errorf("reach %s: %w", cfg.Target, err)
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		_ = resp.Body.Close() // an open server's SSE stream never ends: do not read it
		return ErrNotProtected
	}
	if err := h.loginFlow(ctx, req, resp); err != nil {
		return fmt.Errorf("log in to %s: %w", cfg.Name, err)
	}
	return nil
}

// loginFlow runs the grant's flow whatever is stored.
func (h *handler) loginFlow(ctx context.Context, req *http.Request, resp *http.Response) error {
	inner, err := h.innerHandler()
	if err != nil {
		drain(resp)
		return err
	}
	if err := inner.Authorize(ctx, req, resp); err != nil {
		return err
	}
	if h.opts.EffectiveGrant() == config.GrantClientCredentials {
		return nil // nothing to store: the token is fetched again when needed
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rec == nil {
		return errors.New("the authorization flow ended without a token")
	}
	return nil
}

// probeRequest is an unauthenticated first request of the transport.
func probeRequest(ctx context.Context, cfg *config.Server, getenv func(string) string) (*http.Request, error) {
	var req *http.Request
	var err error
	if cfg.Transport() == config.TransportSSE {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, cfg.Target, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, cfg.Target, strings.NewReader(initializeBody))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: bad target: %w", cfg.Name, err)
	}
	for k, v := range cfg.ExpandedHeaders(getenv) {
		req.Header.Set(k, v)
	}
	return req, nil
}
