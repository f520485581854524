package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("internal/poll.runtime_pollWait"),
		// The fixtures' server sessions: a session the hub dropped while its
		// server was down never gets a DELETE, and go-sdk's handler has no
		// Close. The hub's own (client) goroutines are still checked.
		goleak.IgnoreTopFunction("github.com/modelcontextprotocol/go-sdk/mcp.(*streamableServerConn).Read"))
}

// gauge counts the calls an upstream is serving at once, and the most seen;
// closing release ends every call still holding.
type gauge struct {
	cur, max, calls atomic.Int64
	release         chan struct{}
	once            sync.Once
}

// newGauge returns a gauge whose holding calls are all released when the
// test ends, so that no fixture handler outlives it.
func newGauge(t *testing.T) *gauge {
	g := &gauge{release: make(chan struct{})}
	t.Cleanup(g.releaseAll)
	return g
}

func (g *gauge) releaseAll() { g.once.Do(func() { close(g.release) }) }

func (g *gauge) enter() {
	g.calls.Add(1)
	n := g.cur.Add(1)
	for {
		m := g.max.Load()
		if n <= m || g.max.CompareAndSwap(m, n) {
			return
		}
	}
}

type holdIn struct {
	MS int `json:"ms"`
}

type textOut struct {
	Text string `json:"text"`
}

// upstreamServer is a go-sdk server whose "hold" tool sleeps ms (or until
// cancelled) and reports which server answered; toolName renames it so a
// test can tell fresh tool lists apart.
func upstreamServer(name, toolName string, g *gauge) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: toolName}, func(ctx context.Context, _ *mcp.CallToolRequest, in holdIn) (*mcp.CallToolResult, textOut, error) {
		var release chan struct{}
		if g != nil {
			g.enter()
			defer g.cur.Add(-1)
			release = g.release
		}
		select {
		case <-release:
			return nil, textOut{Text: name}, nil
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return nil, textOut{Text: name}, nil
		case <-ctx.Done():
			return nil, textOut{}, ctx.Err()
		}
	})
	return s
}

// switchable serves whichever MCP server is current, or 503 while down.
type switchable struct {
	mu   sync.Mutex
	srv  *mcp.Server
	down bool
}

func (sw *switchable) set(s *mcp.Server, down bool) {
	sw.mu.Lock()
	sw.srv, sw.down = s, down
	sw.mu.Unlock()
}

func (sw *switchable) handler() http.Handler {
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		sw.mu.Lock()
		defer sw.mu.Unlock()
		return sw.srv
	}, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw.mu.Lock()
		down := sw.down
		sw.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

func serve(t *testing.T, s *mcp.Server) string {
	t.Helper()
	sw := &switchable{srv: s}
	return startHTTP(t, sw).URL
}

// startHTTP serves sw until the test ends; the hub's hanging GET streams
// are cut first, or Close would wait for them forever.
func startHTTP(t *testing.T, sw *switchable) *httptest.Server {
	srv := httptest.NewServer(sw.handler())
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

func httpServer(name, url string) *config.Server {
	return &config.Server{Name: name, Target: url, Type: config.TransportHTTP, TimeoutMS: 10_000}
}

func newHub(t *testing.T, opts hub.Options) *hub.Hub {
	t.Helper()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	h := hub.New(opts)
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

func add(t *testing.T, h *hub.Hub, cfg *config.Server) {
	t.Helper()
	if _, err := h.Add(context.Background(), cfg); err != nil {
		t.Fatalf("add %s: %v", cfg.Name, err)
	}
}

func hold(ctx context.Context, h *hub.Hub, tool string, ms int) (string, error) {
	args, _ := json.Marshal(holdIn{MS: ms})
	res, err := h.CallTool(ctx, nil, tool, args, nil)
	if err != nil {
		return "", err
	}
	var out textOut
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out.Text, nil
}

// concurrently runs n calls at once and returns their results and errors.
func concurrently(n int, f func(i int) (string, error)) ([]string, []error) {
	outs, errs := make([]string, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { outs[i], errs[i] = f(i) })
	}
	wg.Wait()
	return outs, errs
}

// await polls cond until it holds or the deadline passes.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func status(t *testing.T, h *hub.Hub, name string) hub.ServerStatus {
	t.Helper()
	st, err := h.Get(name)
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	return st
}

func TestSwapUnderLoadLosesNoCall(t *testing.T) {
	oldG, newG := newGauge(t), newGauge(t)
	oldURL := serve(t, upstreamServer("old", "hold", oldG))
	newURL := serve(t, upstreamServer("new", "hold", newG))
	h := newHub(t, hub.Options{})
	add(t, h, httpServer("s", oldURL))

	const n = 100
	started := make(chan struct{}, n)
	var outs []string
	var errs []error
	done := make(chan struct{})
	go func() {
		defer close(done)
		outs, errs = concurrently(n, func(int) (string, error) {
			started <- struct{}{}
			return hold(context.Background(), h, "s__hold", 60_000)
		})
	}()
	for range n {
		<-started
	}
	await(t, "all calls at the old upstream", func() bool { return oldG.cur.Load() == n })
	if _, err := h.Swap(context.Background(), httpServer("s", newURL)); err != nil {
		t.Fatalf("swap: %v", err)
	}
	after, err := hold(context.Background(), h, "s__hold", 0)
	if err != nil || after != "new" {
		t.Fatalf("call after swap = %q, %v; want answered by the new upstream", after, err)
	}
	if st := status(t, h, "s"); st.InFlight != n {
		t.Fatalf("in flight after swap = %d, want the %d old calls still counted", st.InFlight, n)
	}
	oldG.releaseAll()
	<-done
	for i := range n {
		if errs[i] != nil || outs[i] != "old" {
			t.Fatalf("call %d in flight during swap: %q, %v; want answered by the old upstream", i, outs[i], errs[i])
		}
	}
	await(t, "old generation closed", func() bool { return status(t, h, "s").InFlight == 0 })
}

func TestRemoveDrainsInFlightAndRefusesNewCalls(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{})
	add(t, h, httpServer("s", serve(t, upstreamServer("s", "hold", g))))

	const n = 5
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = hold(context.Background(), h, "s__hold", 400) })
	}
	await(t, "calls in flight", func() bool { return g.cur.Load() == n })
	removed := make(chan error, 1)
	go func() { removed <- h.Remove(context.Background(), "s") }()
	await(t, "draining status", func() bool { return status(t, h, "s").Status == hub.StatusDraining })

	_, err := hold(context.Background(), h, "s__hold", 0)
	if !errors.Is(err, hub.ErrDraining) {
		t.Fatalf("new call while draining: %v, want ErrDraining", err)
	}
	if err := h.Remove(context.Background(), "s"); !errors.Is(err, hub.ErrAlreadyDrain) && !errors.Is(err, hub.ErrNotFound) {
		t.Fatalf("second remove: %v, want already draining or not found", err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("in-flight call %d failed during drain: %v", i, err)
		}
	}
	if err := <-removed; err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := h.Get("s"); !errors.Is(err, hub.ErrNotFound) {
		t.Fatalf("after drain: %v, want not found", err)
	}
	if _, err := hold(context.Background(), h, "s__hold", 0); !errors.Is(err, hub.ErrUnknownTool) {
		t.Fatalf("call after removal: %v, want unknown tool", err)
	}
}

func TestDrainTimeoutClosesWithCallsInFlight(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{DrainTimeout: 100 * time.Millisecond})
	add(t, h, httpServer("s", serve(t, upstreamServer("s", "hold", g))))
	t.Cleanup(g.releaseAll) // before the server's Close, which waits for handlers
	callErr := make(chan error, 1)
	go func() { _, err := hold(context.Background(), h, "s__hold", 60_000); callErr <- err }()
	await(t, "call in flight", func() bool { return g.cur.Load() == 1 })
	if err := h.Remove(context.Background(), "s"); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if err := <-callErr; !errors.Is(err, upstream.ErrClosedInFlight) {
		t.Fatalf("call cut off by the drain timeout: %v, want ErrClosedInFlight", err)
	}
}
