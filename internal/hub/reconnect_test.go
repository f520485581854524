package hub_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// gate refuses every request until hold, then holds each one until release
// and counts how many it holds at once.
type gate struct {
	mu       sync.Mutex
	holding  bool
	held     int
	mostHeld int
	arrived  chan struct{}
	release  chan struct{}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	if !g.holding {
		g.mu.Unlock()
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	g.held++
	g.mostHeld = max(g.mostHeld, g.held)
	g.mu.Unlock()
	select {
	case g.arrived <- struct{}{}:
	default:
	}
	select {
	case <-g.release:
	case <-r.Context().Done():
	}
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
	http.Error(w, "down", http.StatusServiceUnavailable)
}

// A server that fails again while it is already being retried (here: a
// failed swap during the retries of a failed add) is retried by one loop,
// which starts over, not by a second loop beside the first.
func TestOneReconnectLoopPerServer(t *testing.T) {
	g := &gate{arrived: make(chan struct{}, 1), release: make(chan struct{})}
	srv := httptest.NewServer(g)
	defer srv.Close()
	defer close(g.release)
	h := newHub(t, hub.Options{BackoffMin: time.Millisecond, BackoffMax: 2 * time.Millisecond})

	if _, err := h.Add(context.Background(), httpServer("s", srv.URL)); err == nil {
		t.Fatal("adding a server that refuses succeeded")
	}
	if _, err := h.Swap(context.Background(), httpServer("s", srv.URL+"/")); err == nil {
		t.Fatal("swapping to a server that refuses succeeded")
	}
	g.mu.Lock()
	g.holding = true
	g.mu.Unlock()
	<-g.arrived // one attempt is held: a loop is waiting on it
	// A second loop's attempt would arrive within a few backoffs (2 ms);
	// this bounds how long the test looks for one, it measures nothing.
	select {
	case <-g.arrived:
	case <-time.After(300 * time.Millisecond):
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mostHeld != 1 {
		t.Errorf("%d connection attempts were in flight at once for one server, want 1", g.mostHeld)
	}
}
