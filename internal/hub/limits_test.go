package hub_test

import (
	"context"
	"errors"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

func TestPerServerLimitQueuesCallsWithoutDroppingThem(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{})
	cfg := httpServer("s", serve(t, upstreamServer("s", "hold", g)))
	cfg.MaxConcurrentCalls = 2
	add(t, h, cfg)
	_, errs := concurrently(8, func(int) (string, error) { return hold(context.Background(), h, "s__hold", 50) })
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := g.max.Load(); got != 2 {
		t.Fatalf("most calls at once at the upstream = %d, want the limit 2", got)
	}
}

func TestGlobalLimitSpansServers(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{MaxConcurrentCalls: 3})
	add(t, h, httpServer("a", serve(t, upstreamServer("a", "hold", g))))
	add(t, h, httpServer("b", serve(t, upstreamServer("b", "hold", g))))
	_, errs := concurrently(12, func(i int) (string, error) {
		return hold(context.Background(), h, []string{"a__hold", "b__hold"}[i%2], 50)
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := g.max.Load(); got != 3 {
		t.Fatalf("most calls at once across servers = %d, want the global limit 3", got)
	}
}

func TestWaitForSlotIsBoundedByTimeout(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{})
	cfg := httpServer("s", serve(t, upstreamServer("s", "hold", g)))
	cfg.MaxConcurrentCalls = 1
	add(t, h, cfg)
	t.Cleanup(g.releaseAll) // before the server's Close, which waits for handlers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = hold(ctx, h, "s__hold", 60_000) }()
	await(t, "slot taken", func() bool { return g.cur.Load() == 1 })
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	_, err := hold(short, h, "s__hold", 0)
	if err == nil || !strings.Contains(err.Error(), "max_concurrent_calls") {
		t.Fatalf("queued call past its deadline: %v, want an error naming max_concurrent_calls", err)
	}
	if g.calls.Load() != 1 {
		t.Fatalf("upstream saw %d calls, want only the one holding the slot", g.calls.Load())
	}
}

// TestToolTimeoutsOpenThatToolsBreakerOnly: timeouts of one slow tool open
// that tool's breaker (fail fast, then one probe), while the server's breaker
// stays closed and its other tools keep answering.
func TestToolTimeoutsOpenThatToolsBreakerOnly(t *testing.T) {
	clock := time.Unix(1_000_000, 0)
	now := func() time.Time { return clock }
	g := newGauge(t)
	h := newHub(t, hub.Options{Now: now})
	up := upstreamServer("s", "hold", g)
	mcp.AddTool(up, &mcp.Tool{Name: "quick"}, func(context.Context, *mcp.CallToolRequest, holdIn) (*mcp.CallToolResult, textOut, error) {
		return nil, textOut{Text: "quick"}, nil
	})
	cfg := httpServer("s", serve(t, up))
	cfg.TimeoutMS, cfg.FailureThreshold, cfg.ResetTimeout = 1000, 2, config.Duration(time.Minute)
	add(t, h, cfg)

	for i := range 2 { // two timeouts open hold's breaker
		if _, err := hold(context.Background(), h, "s__hold", 10_000); err == nil {
			t.Fatalf("call %d beyond the timeout succeeded", i)
		}
	}
	before := g.calls.Load()
	_, err := hold(context.Background(), h, "s__hold", 0)
	var coe *hub.CircuitOpenError
	if !errors.As(err, &coe) || coe.Server != "s" || coe.Tool != "hold" || !strings.Contains(err.Error(), "next probe in 60s") {
		t.Fatalf("call with hold's breaker open: %v, want a CircuitOpenError naming s, hold and the wait", err)
	}
	if g.calls.Load() != before {
		t.Fatal("a call with the breaker open reached the upstream")
	}
	if st := status(t, h, "s"); st.Breaker != hub.BreakerClosed || st.Failures != 0 {
		t.Fatalf("server breaker after a tool's timeouts: %s with %d failures, want closed with 0", st.Breaker, st.Failures)
	}
	if out, err := hold(context.Background(), h, "s__quick", 0); err != nil || out != "quick" {
		t.Fatalf("another tool of the server: %q, %v; want it answered", out, err)
	}

	clock = clock.Add(time.Minute) // the probe is let through and succeeds
	if _, err := hold(context.Background(), h, "s__hold", 0); err != nil {
		t.Fatalf("probe call: %v", err)
	}
	if _, err := hold(context.Background(), h, "s__hold", 0); err != nil {
		t.Fatalf("call after a good probe: %v", err)
	}
}

func TestCancelledCallsDoNotOpenTheBreaker(t *testing.T) {
	g := newGauge(t)
	h := newHub(t, hub.Options{})
	cfg := httpServer("s", serve(t, upstreamServer("s", "hold", g)))
	cfg.FailureThreshold = 1
	add(t, h, cfg)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		_, _ = hold(ctx, h, "s__hold", 5_000)
		cancel()
	}
	if st := status(t, h, "s"); st.Breaker != hub.BreakerClosed {
		t.Fatalf("after 3 calls cancelled by their callers: %s, want closed", st.Breaker)
	}
}

func TestDroppedUpstreamReconnectsWithFreshTools(t *testing.T) {
	sw := &switchable{srv: upstreamServer("s", "hold", nil)}
	srv := startHTTP(t, sw)
	// Short pings detect the drop; short backoff brings it back quickly.
	h := newHub(t, hub.Options{
		BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Upstream: upstream.Options{KeepAlive: 50 * time.Millisecond},
	})
	cfg := httpServer("s", srv.URL)
	add(t, h, cfg)

	sw.set(upstreamServer("s", "hold_v2", nil), true)
	srv.CloseClientConnections()
	await(t, "disconnected", func() bool { return status(t, h, "s").Status == hub.StatusDisconnected })
	if _, err := hold(context.Background(), h, "s__hold", 0); !errors.Is(err, hub.ErrDisconnected) {
		t.Fatalf("call to a disconnected server: %v, want ErrDisconnected naming it", err)
	}
	sw.set(upstreamServer("s", "hold_v2", nil), false)
	await(t, "active again with the fresh tool listed", func() bool {
		_, listed := h.Catalog().Tool("s__hold_v2")
		return status(t, h, "s").Status == hub.StatusActive && listed
	})
	if got, err := hold(context.Background(), h, "s__hold_v2", 0); err != nil || got != "s" {
		t.Fatalf("call of the fresh tool: %q, %v", got, err)
	}
	if _, ok := h.Catalog().Tool("s__hold"); ok {
		t.Fatal("the old tool list survived the reconnect")
	}
}
