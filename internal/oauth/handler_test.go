package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"golang.org/x/oauth2"
)

func testManager(t *testing.T, login *Login) *Manager {
	t.Helper()
	store := newFileStore(t.TempDir())
	return NewManager(ManagerOptions{Store: store, Login: login})
}

func TestHandlerOnlyForManagedRemotes(t *testing.T) {
	m := testManager(t, nil)
	rows := []struct {
		name string
		cfg  *config.Server
		want bool
	}{
		{"stdio", &config.Server{Name: "s", Type: config.TransportStdio, Target: "srv"}, false},
		{"own Authorization header", &config.Server{Name: "s", Type: config.TransportHTTP, Target: "http://x/mcp", Headers: map[string]string{"authorization": "Bearer k"}}, false},
		{"http", &config.Server{Name: "s", Type: config.TransportHTTP, Target: "http://x/mcp"}, true},
		{"sse", &config.Server{Name: "s", Type: config.TransportSSE, Target: "http://x/sse"}, true},
	}
	for _, r := range rows {
		if got := m.Handler(r.cfg) != nil; got != r.want {
			t.Errorf("%s: handler %v, want %v", r.name, got, r.want)
		}
	}
}

// unauthorized answers 401 with the given WWW-Authenticate header.
func unauthorized(challenge string) *http.Response {
	h := http.Header{}
	if challenge != "" {
		h.Set("WWW-Authenticate", challenge)
	}
	return &http.Response{StatusCode: 401, Status: "401 Unauthorized", Header: h, Body: io.NopCloser(strings.NewReader(""))}
}

func TestServeModeNeedsLogin(t *testing.T) {
	m := testManager(t, nil)
	cfg := &config.Server{Name: "gh", Type: config.TransportHTTP, Target: "http://127.0.0.1:1/mcp"}
	req, _ := http.NewRequest(http.MethodPost, cfg.Target, nil)

	err := m.Handler(cfg).Authorize(context.Background(), req, unauthorized(`Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"`))
	if !errors.Is(err, ErrNeedsLogin) || err.Error() != "gh needs login: run `weft mcp login gh`" {
		t.Errorf("401 with an OAuth challenge: %v", err)
	}
	err = m.Handler(cfg).Authorize(context.Background(), req, unauthorized(`Basic realm="x"`))
	if err == nil || errors.Is(err, ErrNeedsLogin) || !strings.Contains(err.Error(), "without an OAuth challenge") {
		t.Errorf("401 without an OAuth challenge on an unmanaged server: %v", err)
	}
	forbidden := &http.Response{StatusCode: 403, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}
	if err := m.Handler(cfg).Authorize(context.Background(), req, forbidden); err != nil {
		t.Errorf("a plain 403 is not a login matter: %v", err)
	}
}

// tokenEndpoint is a stand-in for an authorization server's token endpoint:
// it answers refresh grants, or refuses them once refuse is set.
type tokenEndpoint struct {
	mu      sync.Mutex
	refuse  bool
	forms   []url.Values
	counter int
}

func (te *tokenEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	te.mu.Lock()
	defer te.mu.Unlock()
	te.forms = append(te.forms, r.PostForm)
	w.Header().Set("Content-Type", "application/json")
	if te.refuse {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
		return
	}
	te.counter++
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at-" + string(rune('0'+te.counter)), "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-next"})
}

func TestRefreshBeforeExpiry(t *testing.T) {
	te := &tokenEndpoint{}
	srv := httptest.NewServer(te)
	defer srv.Close()
	m := testManager(t, nil)
	cfg := &config.Server{Name: "gh", Type: config.TransportHTTP, Target: "https://mcp.example/mcp"}
	old := &Record{Server: "gh", Resource: cfg.Target, ClientID: "c", TokenURL: srv.URL, AccessToken: "at-old", RefreshToken: "rt-old",
		Obtained: time.Now().Add(-time.Hour), Expiry: time.Now().Add(10 * time.Second)}
	if err := m.store.Save(old); err != nil {
		t.Fatal(err)
	}
	ts, err := m.Handler(cfg).TokenSource(context.Background())
	if err != nil || ts == nil {
		t.Fatalf("TokenSource: %v, %v", ts, err)
	}
	tok, err := ts.Token()
	if err != nil || tok.AccessToken != "at-1" {
		t.Fatalf("token near expiry: %v, %v; want a refreshed one", tok, err)
	}
	stored, _ := m.store.Load("gh")
	if stored.AccessToken != "at-1" || stored.RefreshToken != "rt-next" {
		t.Errorf("the refreshed tokens were not stored: %+v", stored)
	}
	if f := te.forms[0]; f["grant_type"][0] != "refresh_token" || f["resource"][0] != cfg.Target {
		t.Errorf("refresh request %v lacks the grant or the resource indicator", f)
	}
	if tok, _ := ts.Token(); tok.AccessToken != "at-1" {
		t.Errorf("a fresh token was refreshed again: %v", tok.AccessToken)
	}

	// A refused refresh reads as invalid_grant, so the request goes without
	// a token and its 401 leads to needs_login.
	te.mu.Lock()
	te.refuse = true
	te.mu.Unlock()
	stored.Expiry, stored.Obtained = time.Now(), time.Now().Add(-time.Hour)
	if err := m.store.Save(stored); err != nil {
		t.Fatal(err)
	}
	_, err = ts.Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("refused refresh: %v, want invalid_grant", err)
	}
}

func TestLogoutIsSeenByRunningHandler(t *testing.T) {
	m := testManager(t, nil)
	cfg := &config.Server{Name: "gh", Type: config.TransportHTTP, Target: "https://mcp.example/mcp"}
	if err := m.store.Save(&Record{Server: "gh", Resource: cfg.Target, AccessToken: "at"}); err != nil {
		t.Fatal(err)
	}
	ts, _ := m.Handler(cfg).TokenSource(context.Background())
	if tok, err := ts.Token(); err != nil || tok.AccessToken != "at" {
		t.Fatalf("stored token: %v, %v", tok, err)
	}
	other := testManagerOver(m.store) // another weft process
	if had, _, err := other.Logout(context.Background(), cfg); !had || err != nil {
		t.Fatalf("Logout: %v, %v", had, err)
	}
	if _, err := ts.Token(); err == nil {
		t.Error("the handler still hands out a token after logout")
	}
}

func testManagerOver(s Store) *Manager { return NewManager(ManagerOptions{Store: s}) }

func TestLoginNotProtected(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer srv.Close()
	m := testManager(t, (&Loopback{Out: io.Discard, NoBrowser: true}).Login())
	err := m.Login(context.Background(), &config.Server{Name: "open", Type: config.TransportHTTP, Target: srv.URL})
	if !errors.Is(err, ErrNotProtected) {
		t.Errorf("Login against an open server: %v", err)
	}
}

// TestOneRefreshAcrossProcesses: two wefts sharing the store (weft serve and
// a CLI command) refresh an expiring token once, not twice, so that a
// server rotating refresh tokens never sees the old one again.
func TestOneRefreshAcrossProcesses(t *testing.T) {
	te := &tokenEndpoint{}
	srv := httptest.NewServer(te)
	defer srv.Close()
	store := newFileStore(t.TempDir())
	cfg := &config.Server{Name: "gh", Type: config.TransportHTTP, Target: "https://mcp.example/mcp"}
	if err := store.Save(&Record{Server: "gh", Resource: cfg.Target, ClientID: "c", TokenURL: srv.URL, AccessToken: "at-old",
		RefreshToken: "rt-old", Obtained: time.Now().Add(-time.Hour), Expiry: time.Now().Add(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	var sources []oauth2.TokenSource
	for range 2 {
		ts, _ := testManagerOver(store).Handler(cfg).TokenSource(context.Background())
		sources = append(sources, ts)
	}
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, ts := range sources {
		wg.Go(func() {
			if tok, err := ts.Token(); err == nil {
				got[i] = tok.AccessToken
			}
		})
	}
	wg.Wait()
	te.mu.Lock()
	n := len(te.forms)
	te.mu.Unlock()
	if n != 1 || got[0] != "at-1" || got[1] != "at-1" {
		t.Errorf("%d refreshes, tokens %q; want one refresh shared by both", n, got)
	}
}

// TestTokenRequestsNameTheResource: every grant weft sends carries the
// resource indicator, and configured scopes replace a machine client's.
func TestTokenRequestsNameTheResource(t *testing.T) {
	te := &tokenEndpoint{}
	srv := httptest.NewServer(te)
	defer srv.Close()
	rt := resourceTransport{base: http.DefaultTransport, resource: func() string { return "https://mcp.example/mcp" }, scopes: []string{"a", "b"}}
	for _, grant := range []string{"client_credentials", "refresh_token"} {
		body := "grant_type=" + grant + "&scope=discovered"
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	te.mu.Lock()
	defer te.mu.Unlock()
	if f := te.forms[0]; f.Get("resource") != "https://mcp.example/mcp" || f.Get("scope") != "a b" {
		t.Errorf("client_credentials request %v", f)
	}
	if f := te.forms[1]; f.Get("resource") != "https://mcp.example/mcp" || f.Get("scope") != "discovered" {
		t.Errorf("refresh request %v", f)
	}
}
