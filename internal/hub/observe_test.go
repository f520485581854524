package hub_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// recorder keeps what the hub told it.
type recorder struct {
	mu      sync.Mutex
	started []hub.Call
	ended   []hub.Call
	servers []hub.ServerEvent
}

type ctxMark struct{}

func (r *recorder) CallStarted(ctx context.Context, c *hub.Call) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, *c)
	c.Meta = mcp.Meta{"seen": c.ID}
	return context.WithValue(ctx, ctxMark{}, c.ID)
}

func (r *recorder) CallEnded(ctx context.Context, c *hub.Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(ctxMark{}) != c.ID {
		c.Err = context.Canceled // mark: the call did not end on the context it started
		c.Outcome = "wrong context"
	}
	r.ended = append(r.ended, *c)
}

func (r *recorder) ServerChanged(ev hub.ServerEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.servers = append(r.servers, ev)
}

func (r *recorder) last() hub.Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended[len(r.ended)-1]
}

func TestObserverSeesEveryOutcome(t *testing.T) {
	g := newGauge(t)
	rec := &recorder{}
	long := newGauge(t)
	h := newHub(t, hub.Options{Observer: rec, MaxConcurrentCalls: 1})
	cfg := httpServer("s", serve(t, upstreamServer("s", "hold", g)))
	// The timeout bounds the connection too: on a loaded machine the first
	// attempt may miss it, and the hub's reconnect brings s up.
	cfg.TimeoutMS, cfg.FailureThreshold = 1000, 1
	if _, err := h.Add(context.Background(), cfg); err != nil {
		t.Logf("first connection of s: %v", err)
	}
	await(t, "s active", func() bool { return status(t, h, "s").Status == hub.StatusActive })
	add(t, h, httpServer("long", serve(t, upstreamServer("long", "hold", long))))
	t.Cleanup(g.releaseAll)
	t.Cleanup(long.releaseAll)
	ctx := hub.WithCaller(context.Background(), hub.Caller{Face: "http", Session: "S1", Client: "test"})

	if _, err := hold(ctx, h, "s__hold", 0); err != nil {
		t.Fatal(err)
	}
	ok := rec.last()
	if ok.Outcome != hub.OutcomeOK || ok.Server != "s" || ok.Tool != "s__hold" || ok.Caller.Session != "S1" ||
		ok.Upstream <= 0 || ok.Duration < ok.Upstream || string(ok.Args) != `{"ms":0}` {
		t.Fatalf("ok call recorded as %+v", ok)
	}

	_, _ = hold(ctx, h, "nope__x", 0)
	if c := rec.last(); c.Outcome != hub.OutcomeUnavailable || c.Server != "" {
		t.Fatalf("unknown tool recorded as %s on %q, want unavailable", c.Outcome, c.Server)
	}

	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, _ = hold(cctx, h, "s__hold", 5_000)
	cancel()
	if c := rec.last(); c.Outcome != hub.OutcomeCancelled {
		t.Fatalf("call the caller gave up recorded as %s, want cancelled", c.Outcome)
	}

	// A call holding the only global slot makes the next one wait past its
	// server's timeout.
	done := make(chan struct{})
	go func() { defer close(done); _, _ = hold(ctx, h, "long__hold", 60_000) }()
	await(t, "slot taken", func() bool { return long.cur.Load() == 1 })
	_, _ = hold(ctx, h, "s__hold", 0)
	if c := rec.last(); c.Outcome != hub.OutcomeLimit {
		t.Fatalf("call refused for want of a slot recorded as %s, want limit", c.Outcome)
	}
	long.releaseAll()
	<-done
	_, _ = hold(ctx, h, "s__hold", 5_000) // past the timeout, which opens the breaker (threshold 1)
	if c := rec.last(); c.Outcome != hub.OutcomeTimeout || c.Err == nil {
		t.Fatalf("call past the server's timeout recorded as %s, want timeout", c.Outcome)
	}
	_, _ = hold(ctx, h, "s__hold", 0)
	if c := rec.last(); c.Outcome != hub.OutcomeBreakerOpen {
		t.Fatalf("call refused by the open breaker recorded as %s, want breaker_open", c.Outcome)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.started) != len(rec.ended) {
		t.Fatalf("%d calls started, %d ended", len(rec.started), len(rec.ended))
	}
	sActive := slices.IndexFunc(rec.servers, func(ev hub.ServerEvent) bool {
		return ev.Name == "s" && ev.Status == hub.StatusActive
	})
	if len(rec.servers) < 2 || sActive < 0 || sActive > slices.IndexFunc(rec.servers, func(ev hub.ServerEvent) bool { return ev.Name == "long" }) {
		t.Fatalf("server events %+v, want s active before long was added", rec.servers)
	}
}

func TestObserverSeesServerRemovedAndReconnected(t *testing.T) {
	rec := &recorder{}
	h := newHub(t, hub.Options{Observer: rec, BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Upstream: upstream.Options{KeepAlive: 50 * time.Millisecond}})
	sw := &switchable{srv: upstreamServer("s", "hold", nil)}
	srv := startHTTP(t, sw)
	add(t, h, httpServer("s", srv.URL))

	sw.set(upstreamServer("s", "hold", nil), true) // down: pings fail
	srv.CloseClientConnections()
	await(t, "disconnected", func() bool { return status(t, h, "s").Status == hub.StatusDisconnected })
	sw.set(upstreamServer("s", "hold", nil), false)
	await(t, "reconnected event", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, ev := range rec.servers {
			if ev.Reconnected && ev.Status == hub.StatusActive {
				return true
			}
		}
		return false
	})
	if err := h.Remove(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if last := rec.servers[len(rec.servers)-1]; last.Status != hub.StatusRemoved {
		t.Fatalf("last event %+v, want removed", last)
	}
}

// retryWatcher reads the server's status each time the hub reports it
// disconnected, as `weft mcp list` or the dashboard may at that moment.
type retryWatcher struct {
	recorder
	h       atomic.Pointer[hub.Hub]
	mu      sync.Mutex
	seen    []hub.ServerStatus
	missing []hub.ServerStatus
}

func (w *retryWatcher) ServerChanged(ev hub.ServerEvent) {
	h := w.h.Load()
	if h == nil || ev.Status != hub.StatusDisconnected {
		return
	}
	st, err := h.Get(ev.Name)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, st)
	if st.Status == hub.StatusDisconnected && (st.NextRetry.IsZero() || st.Reconnects < 1) {
		w.missing = append(w.missing, st)
	}
}

// A disconnected server's status names its next reconnect attempt from the
// moment it is disconnected: after a failed first connection, after a lost
// connection, and after a failed reconnect attempt.
func TestDisconnectedStatusNamesItsNextRetry(t *testing.T) {
	w := &retryWatcher{}
	h := newHub(t, hub.Options{Observer: w, BackoffMin: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		Upstream: upstream.Options{KeepAlive: 50 * time.Millisecond}})
	w.h.Store(h)

	sw := &switchable{srv: upstreamServer("s", "hold", nil)}
	srv := startHTTP(t, sw)
	add(t, h, httpServer("s", srv.URL))
	sw.set(upstreamServer("s", "hold", nil), true) // down: pings and reconnects fail
	srv.CloseClientConnections()
	await(t, "a failed reconnect after the loss", func() bool {
		st := status(t, h, "s")
		return st.Status == hub.StatusDisconnected && st.Reconnects >= 2
	})
	sw.set(upstreamServer("s", "hold", nil), false)
	await(t, "active again", func() bool { return status(t, h, "s").Status == hub.StatusActive })

	refused := httpServer("never", "http://127.0.0.1:1/mcp")
	if _, err := h.Add(context.Background(), refused); err == nil {
		t.Fatal("adding a server nobody listens for succeeded")
	}
	if st := status(t, h, "never"); st.NextRetry.IsZero() || st.Reconnects != 1 {
		t.Fatalf("a server whose first connection failed: %+v, want its first reconnect attempt named", st)
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) < 3 {
		t.Fatalf("saw %d disconnected events, want the loss, a failed reconnect and the failed add", len(w.seen))
	}
	if len(w.missing) > 0 {
		t.Fatalf("disconnected without its next attempt: %+v", w.missing[0])
	}
}
