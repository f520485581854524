package hub_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/upstream"
	"golang.org/x/oauth2"
)

// fakeLogin is a server's stored login as the hub sees it through the
// OAuth hook: a token (or none) and a stamp that changes with it.
type fakeLogin struct {
	mu    sync.Mutex
	token string
	stamp int
}

func (f *fakeLogin) set(token string) {
	f.mu.Lock()
	f.token, f.stamp = token, f.stamp+1
	f.mu.Unlock()
}

func (f *fakeLogin) Stamp() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Repeat("x", f.stamp)
}

func (f *fakeLogin) TokenSource(context.Context) (oauth2.TokenSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token == "" {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: f.token}), nil
}

// Authorize is weft serve's answer to a 401: only a login helps.
func (f *fakeLogin) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return &oauth.NeedsLoginError{Server: "gh"}
}

// requireBearer lets through only requests carrying "Bearer good".
func requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource"`)
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestNeedsLoginLifecycle(t *testing.T) {
	sw := &switchable{srv: upstreamServer("gh", "hold", nil)}
	srv := httptest.NewServer(requireBearer(sw.handler()))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	login := &fakeLogin{}
	h := newHub(t, hub.Options{
		LoginStamp: login.Stamp,
		Upstream:   upstreamOptionsWithOAuth(login),
	})
	_, err := h.Add(context.Background(), httpServer("gh", srv.URL))
	if !errors.Is(err, oauth.ErrNeedsLogin) {
		t.Fatalf("Add without a login: %v", err)
	}
	st := status(t, h, "gh")
	if st.Status != hub.StatusNeedsLogin || st.LastError != "gh needs login: run `weft mcp login gh`" || !st.NextRetry.IsZero() {
		t.Fatalf("status %+v: want needs_login with the fix and no timed retry", st)
	}
	_, err = hold(context.Background(), h, "gh__hold", 0)
	if err == nil || !strings.Contains(err.Error(), "gh needs login: run `weft mcp login gh`") {
		t.Errorf("call while needs_login: %v", err)
	}

	login.set("good") // weft mcp login in another process
	await(t, "the server to come back after the login", func() bool { return status(t, h, "gh").Status == hub.StatusActive })
	if out, err := hold(context.Background(), h, "gh__hold", 0); err != nil || out != "gh" {
		t.Fatalf("call after login: %q, %v", out, err)
	}

	login.set("") // weft mcp logout
	await(t, "needs_login after the logout", func() bool { return status(t, h, "gh").Status == hub.StatusNeedsLogin })
	if _, ok := h.Catalog().Tool("gh__hold"); ok {
		t.Error("the tools of a server that needs a login are still listed")
	}
}

func upstreamOptionsWithOAuth(l *fakeLogin) upstream.Options {
	return upstream.Options{OAuth: func(*config.Server) auth.OAuthHandler { return l }}
}

// A swap to a config whose server needs a login the store lacks shows
// needs_login at once, with the fix and no timed retry, as an Add of that
// config does; the login then brings it back.
func TestFailedSwapForAMissingLoginNeedsLogin(t *testing.T) {
	open := httptest.NewServer(oneToolServer("open_tool"))
	guarded := httptest.NewServer(requireBearer(oneToolServer("guarded_tool")))
	t.Cleanup(guarded.Close)
	t.Cleanup(open.Close)
	login := &fakeLogin{}
	// A backoff far longer than the test: only the login can reconnect it.
	h := newHub(t, hub.Options{
		LoginStamp: login.Stamp,
		Upstream:   upstreamOptionsWithOAuth(login),
		BackoffMin: time.Hour,
		BackoffMax: time.Hour,
	})
	add(t, h, httpServer("gh", open.URL))

	st, err := h.Swap(context.Background(), httpServer("gh", guarded.URL))
	if !errors.Is(err, oauth.ErrNeedsLogin) {
		t.Fatalf("swap to a server that needs a login: %v", err)
	}
	if st.Status != hub.StatusNeedsLogin || st.LastError != "gh needs login: run `weft mcp login gh`" || !st.NextRetry.IsZero() {
		t.Fatalf("status after the swap %+v: want needs_login with the fix and no timed retry", st)
	}

	login.set("good")
	await(t, "the server to come back after the login", func() bool { return status(t, h, "gh").Status == hub.StatusActive })
	if tools := h.Catalog().Tools; len(tools) != 1 || tools[0].Original != "guarded_tool" {
		t.Errorf("the server lists %v, want the swap's guarded_tool", tools)
	}
}
