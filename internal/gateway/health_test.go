package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/testutil"
	"github.com/weft-dev/weft/internal/upstream"
	"golang.org/x/oauth2"
)

// /readyz?all waits for every configured server to be active with its
// tools listed: a server that is active but waits for the catalog build of
// its batch (the others still starting) is not ready yet, nor is one still
// connecting; plain /readyz (no ready_requires) is ready at once.
func TestReadyAllWaitsForEveryServersTools(t *testing.T) {
	gate := make(chan struct{})
	slowURL := testutil.ServeGatedHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return testutil.NewServer(testutil.ServerOptions{Name: "slow"})
	}, nil), gate)
	fastURL := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return testutil.NewServer(testutil.ServerOptions{Name: "fast"})
	}, nil))
	t.Cleanup(fastURL.Close)
	// The window outlasts the test: fast's batch is built when slow arrives.
	fastActive := make(chan struct{})
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames, ArrivalWindow: time.Hour,
		Observer: activeSignal{"fast", fastActive}})
	t.Cleanup(func() { h.Close(context.Background()) })
	web := httptest.NewServer(gateway.New(h, gateway.Options{Version: "test"}).Handler())
	t.Cleanup(web.Close)
	h.Start(map[string]*config.Server{
		"slow": {Name: "slow", Type: config.TransportHTTP, Target: slowURL, TimeoutMS: 30_000},
		"fast": {Name: "fast", Type: config.TransportHTTP, Target: fastURL.URL, TimeoutMS: 30_000},
	})
	<-fastActive // then it waits for slow before its tools are built in
	ready := func(query string) (int, string) {
		resp, err := http.Get(web.URL + gateway.ReadyzPath + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := ready("?all"); code != 503 || !strings.Contains(body, "server fast is active, its tools not listed yet") ||
		!strings.Contains(body, "server slow is connecting") {
		t.Fatalf("/readyz?all while fast waits for its build and slow connects: %d %q", code, body)
	}
	if code, _ := ready(""); code != 200 {
		t.Fatalf("/readyz without ready_requires: %d, want 200", code)
	}
	close(gate)
	h.Settle(context.Background())
	if code, body := ready("?all"); code != 200 || body != "ready\n" {
		t.Fatalf("/readyz?all after every server settled: %d %q", code, body)
	}
	if n := len(h.Catalog().Tools); n == 0 {
		t.Fatal("ready, but nothing listed")
	}
}

// activeSignal closes active when server name becomes active.
type activeSignal struct {
	name   string
	active chan struct{}
}

func (a activeSignal) CallStarted(ctx context.Context, _ *hub.Call) context.Context { return ctx }
func (a activeSignal) CallEnded(context.Context, *hub.Call)                         {}
func (a activeSignal) ServerChanged(ev hub.ServerEvent) {
	if ev.Name == a.name && ev.Status == hub.StatusActive {
		close(a.active)
	}
}

// noLogin is weft serve's OAuth hook for a server without a stored login:
// no token, and a 401 is answered by asking for a login.
type noLogin struct{}

func (noLogin) TokenSource(context.Context) (oauth2.TokenSource, error) { return nil, nil }
func (noLogin) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return &oauth.NeedsLoginError{Server: "gh"}
}

// A server that needs a login keeps /readyz?all not ready (its tools are
// not listed, and no timer brings them), with the command that fixes it;
// plain /readyz does not wait for it unless ready_requires names it.
func TestReadyAllCountsAServerThatNeedsALogin(t *testing.T) {
	guarded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "log in first", http.StatusUnauthorized)
	}))
	t.Cleanup(guarded.Close)
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames,
		Upstream: upstream.Options{OAuth: func(*config.Server) auth.OAuthHandler { return noLogin{} }}})
	t.Cleanup(func() { h.Close(context.Background()) })
	web := httptest.NewServer(gateway.New(h, gateway.Options{Version: "test"}).Handler())
	t.Cleanup(web.Close)
	h.Start(map[string]*config.Server{"gh": {Name: "gh", Type: config.TransportHTTP, Target: guarded.URL, TimeoutMS: 30_000}})
	h.Settle(context.Background())
	for _, c := range []struct{ query, want string }{
		{"?all", "not ready: server gh needs login: run `weft mcp login gh`\n"},
		{"", "ready\n"},
	} {
		resp, err := http.Get(web.URL + gateway.ReadyzPath + c.query)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != c.want {
			t.Errorf("/readyz%s: %d %q, want %q", c.query, resp.StatusCode, b, c.want)
		}
	}
}
