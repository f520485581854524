package hub_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/naming"
	"github.com/weft-dev/weft/internal/testutil"
)

// hungServer is a stdio upstream that never answers the handshake.
func hungServer(name string) *config.Server {
	return &config.Server{Name: name, Type: config.TransportStdio, Target: "sleep", Args: []string{"1000"}, TimeoutMS: 60_000}
}

// Start returns while a hung upstream is still connecting; the good one's
// tools join the catalog and listeners hear of it without waiting for it.
func TestStartDoesNotWaitForAHungServer(t *testing.T) {
	h := newHub(t, hub.Options{})
	changed := make(chan *hub.Catalog, 16)
	h.OnChange(func(c *hub.Catalog) {
		select {
		case changed <- c:
		default:
		}
	})
	h.Start(map[string]*config.Server{
		"hung": hungServer("hung"),
		"good": httpServer("good", serve(t, upstreamServer("good", "hold", nil))),
	})
	if st := status(t, h, "hung"); st.Status != hub.StatusConnecting {
		t.Fatalf("hung server status = %s, want connecting", st.Status)
	}
	for cat := range changed {
		if _, ok := cat.Tool("good__hold"); ok {
			break
		}
	}
	if st := status(t, h, "hung"); st.Status != hub.StatusConnecting {
		t.Fatalf("hung server status after the good one came up = %s, want connecting", st.Status)
	}
	if out, err := hold(context.Background(), h, "good__hold", 0); err != nil || out != "good" {
		t.Fatalf("call of the good server = %q, %v", out, err)
	}
}

// A call of a tool whose server is still on its first connection waits for
// it, bounded by the call's context, then names the server and its state.
func TestCallOfConnectingServerFailsWithStillConnecting(t *testing.T) {
	h := newHub(t, hub.Options{})
	h.Start(map[string]*config.Server{"hung": hungServer("hung")})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := hold(ctx, h, "hung__hold", 0)
	if !errors.Is(err, hub.ErrConnecting) || !strings.Contains(err.Error(), "hung: still connecting (") {
		t.Fatalf("call = %v, want `hung: still connecting (…)`", err)
	}
}

// A call made while its server is still connecting is served once the
// server comes up, instead of failing as an unknown tool.
func TestCallWaitsForServerToConnect(t *testing.T) {
	gate := make(chan struct{})
	url := testutil.ServeGatedHTTP(t, (&switchable{srv: upstreamServer("slow", "hold", nil)}).handler(), gate)
	h := newHub(t, hub.Options{})
	h.Start(map[string]*config.Server{"slow": httpServer("slow", url)})
	if st := status(t, h, "slow"); st.Status != hub.StatusConnecting {
		t.Fatalf("status = %s, want connecting", st.Status)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	calling := make(chan struct{})
	go func() {
		close(calling)
		out, err := hold(context.Background(), h, "slow__hold", 0)
		done <- result{out, err}
	}()
	<-calling
	close(gate)
	if r := <-done; r.err != nil || r.out != "slow" {
		t.Fatalf("call during connect = %q, %v; want it served once connected", r.out, r.err)
	}
}

// Settle reports the servers whose first attempt failed.
func TestSettleReportsFailures(t *testing.T) {
	h := newHub(t, hub.Options{BackoffMin: time.Hour})
	bad := &config.Server{Name: "bad", Type: config.TransportStdio, Target: "false", TimeoutMS: 10_000}
	h.Start(map[string]*config.Server{"bad": bad, "good": httpServer("good", serve(t, upstreamServer("good", "hold", nil)))})
	failed := h.Settle(context.Background())
	if len(failed) != 1 || failed["bad"] == nil {
		t.Fatalf("Settle = %v, want only bad", failed)
	}
	if st := status(t, h, "good"); st.Status != hub.StatusActive {
		t.Fatalf("good = %s", st.Status)
	}
}

// A listener that takes its time never holds up the next catalog: the
// catalog is built and stored under the rebuild lock, listeners are called
// after it is released.
func TestSlowListenerDoesNotHoldCatalogBuild(t *testing.T) {
	h := newHub(t, hub.Options{})
	block, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h.OnChange(func(c *hub.Catalog) {
		if _, ok := c.Tool("a__hold"); ok {
			once.Do(func() { close(entered); <-block })
		}
	})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(block)
	wg.Go(func() {
		_, _ = h.Add(context.Background(), httpServer("a", serve(t, upstreamServer("a", "hold", nil))))
	})
	<-entered
	wg.Go(func() {
		_, _ = h.Add(context.Background(), httpServer("b", serve(t, upstreamServer("b", "hold", nil))))
	})
	await(t, "b's tool in the catalog while a listener is busy", func() bool {
		_, ok := h.Catalog().Tool("b__hold")
		return ok
	})
}

// A call of a tool of an agent's separate instance (SERVER@AGENT, whose
// tool names are shortened) still on its first connection waits for it as
// for any server, then says it is still connecting.
func TestCallOfConnectingInstanceFailsWithStillConnecting(t *testing.T) {
	h := newHub(t, hub.Options{})
	h.Start(map[string]*config.Server{"hung@x": hungServer("hung@x")})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := hold(ctx, h, naming.Join("hung@x", "__", "hold"), 0)
	if !errors.Is(err, hub.ErrConnecting) || !strings.Contains(err.Error(), "hung@x: still connecting (") {
		t.Fatalf("call = %v, want `hung@x: still connecting (…)`", err)
	}
}
