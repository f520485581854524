package hub_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// oldUpstream refuses every request until hold, then holds each one until
// release and serves it as an MCP server with one tool, old_tool (or,
// with failHeld, refuses it then too); it reports a session's DELETE (its
// client closing it) on deleted.
type oldUpstream struct {
	mu       sync.Mutex
	holding  bool
	failHeld bool
	arrived  chan struct{}
	release  chan struct{}
	deleted  chan struct{}
	mcp      http.Handler
}

func (u *oldUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	holding := u.holding
	u.mu.Unlock()
	if !holding {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	select {
	case u.arrived <- struct{}{}:
	default:
	}
	<-u.release
	if u.failHeld {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if r.Method == http.MethodDelete {
		select {
		case u.deleted <- struct{}{}:
		default:
		}
	}
	u.mcp.ServeHTTP(w, r)
}

func oneToolServer(tool string) http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: tool, Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: tool}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// A reconnect attempt that was dialling the old config while a swap
// connected the new one does not replace the swap's connection: the
// config, not an attempt made from the one before it, is the server's.
func TestReconnectOfTheOldConfigLeavesTheSwapsConnection(t *testing.T) {
	old := &oldUpstream{arrived: make(chan struct{}, 1), release: make(chan struct{}), deleted: make(chan struct{}, 1), mcp: oneToolServer("old_tool")}
	oldSrv := httptest.NewServer(old)
	newSrv := httptest.NewServer(oneToolServer("new_tool"))
	// Cleanups run last first: the hub closes its sessions, then the servers.
	t.Cleanup(newSrv.Close)
	t.Cleanup(oldSrv.Close)
	h := newHub(t, hub.Options{BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond})

	if _, err := h.Add(context.Background(), httpServer("s", oldSrv.URL)); err == nil {
		t.Fatal("adding a server that refuses succeeded")
	}
	old.mu.Lock()
	old.holding = true
	old.mu.Unlock()
	<-old.arrived // the reconnect loop is dialling the old config
	if _, err := h.Swap(context.Background(), httpServer("s", newSrv.URL)); err != nil {
		t.Fatalf("swap to a server that answers: %v", err)
	}
	close(old.release) // the old config's dial completes
	// A bound for a broken build: the attempt's connection is closed (its
	// session deleted) as soon as its handshake ends.
	select {
	case <-old.deleted:
	case <-time.After(10 * time.Second):
		t.Fatal("the old config's connection was not closed: it replaced the swap's")
	}
	if tools := h.Catalog().Tools; len(tools) != 1 || tools[0].Original != "new_tool" {
		t.Errorf("the server lists %v, want the swap's new_tool", tools)
	}
}

// A reconnect attempt that was dialling the old config while a swap
// connected the new one, and then fails, leaves the server as the swap
// made it: active, without the old config's error or a retry.
func TestFailedReconnectOfTheOldConfigLeavesTheSwapsStatus(t *testing.T) {
	old := &oldUpstream{failHeld: true, arrived: make(chan struct{}, 1), release: make(chan struct{}), mcp: oneToolServer("old_tool")}
	oldSrv := httptest.NewServer(old)
	newSrv := httptest.NewServer(oneToolServer("new_tool"))
	t.Cleanup(newSrv.Close)
	t.Cleanup(oldSrv.Close)
	logs := logSignal{msgs: make(chan string, 64)}
	h := hub.New(hub.Options{BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond, Logger: slog.New(logs)})
	t.Cleanup(func() { h.Close(context.Background()) })

	if _, err := h.Add(context.Background(), httpServer("s", oldSrv.URL)); err == nil {
		t.Fatal("adding a server that refuses succeeded")
	}
	old.mu.Lock()
	old.holding = true
	old.mu.Unlock()
	<-old.arrived // the reconnect loop is dialling the old config; its earlier failures are logged
	for len(logs.msgs) > 0 {
		<-logs.msgs
	}
	if _, err := h.Swap(context.Background(), httpServer("s", newSrv.URL)); err != nil {
		t.Fatalf("swap to a server that answers: %v", err)
	}
	close(old.release) // the old config's dial fails
	// A bound for a broken build: the attempt's end is logged either way.
	for ended := false; !ended; {
		select {
		case msg := <-logs.msgs:
			ended = msg == "upstream not connected" || msg == "an attempt with a replaced config failed"
		case <-time.After(10 * time.Second):
			t.Fatal("the old config's attempt did not end")
		}
	}
	if st := status(t, h, "s"); st.Status != hub.StatusActive || st.LastError != "" || !st.NextRetry.IsZero() {
		t.Errorf("status after the old config's attempt failed: %+v, want the swap's: active, no error, no retry", st)
	}
}

// logSignal is a log handler that passes each message on msgs (dropping
// it when msgs is full).
type logSignal struct{ msgs chan string }

func (l logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (l logSignal) Handle(_ context.Context, r slog.Record) error {
	select {
	case l.msgs <- r.Message:
	default:
	}
	return nil
}
func (l logSignal) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l logSignal) WithGroup(string) slog.Handler      { return l }

// A server that connects on a retry serves (Serving, what /readyz?all
// reads) only once a build has listed its tools, not as soon as it is
// active: a script that waits for it and then lists would miss them.
func TestServingWaitsForTheBuildOfAReconnect(t *testing.T) {
	up := &oldUpstream{arrived: make(chan struct{}, 1), release: make(chan struct{}), mcp: oneToolServer("late_tool")}
	close(up.release)
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	obs := &servingAtActive{seen: make(chan bool, 1)}
	h := newHub(t, hub.Options{BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond, Observer: obs})
	obs.h = h
	if _, err := h.Add(context.Background(), httpServer("s", srv.URL)); err == nil {
		t.Fatal("adding a server that refuses succeeded")
	}
	up.mu.Lock()
	up.holding = true // the next attempt connects
	up.mu.Unlock()
	select {
	case serving := <-obs.seen:
		if serving {
			t.Error("the server served as it became active, before a build listed its tools")
		}
	case <-time.After(10 * time.Second): // a bound for a broken build
		t.Fatal("the server did not become active")
	}
	await(t, "the server to serve", func() bool { _, ok, _ := h.Serving("s"); return ok })
	if tools := h.Catalog().Tools; len(tools) != 1 || tools[0].Original != "late_tool" {
		t.Errorf("serving, but the catalog lists %v", tools)
	}
}

// servingAtActive records, when server s becomes active, whether the hub
// then says it serves.
type servingAtActive struct {
	h    *hub.Hub
	seen chan bool
}

func (o *servingAtActive) CallStarted(ctx context.Context, _ *hub.Call) context.Context { return ctx }
func (o *servingAtActive) CallEnded(context.Context, *hub.Call)                         {}
func (o *servingAtActive) ServerChanged(ev hub.ServerEvent) {
	if ev.Name == "s" && ev.Status == hub.StatusActive {
		_, serving, _ := o.h.Serving("s")
		select {
		case o.seen <- serving:
		default:
		}
	}
}
