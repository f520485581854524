package gateway_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
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
