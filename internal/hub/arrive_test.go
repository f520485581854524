package hub_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// Servers that end their first connection together reach listeners as one
// catalog holding all their tools, not one catalog per server.
func TestServersArrivingTogetherCostOneCatalog(t *testing.T) {
	// A window longer than any test: the batch ends when the last arrives.
	h := newHub(t, hub.Options{ArrivalWindow: time.Hour})
	heard := recordCatalogs(h)
	gate := make(chan struct{})
	servers := map[string]*config.Server{}
	for i := range 5 {
		name := fmt.Sprintf("s%d", i)
		url := testutil.ServeGatedHTTP(t, (&switchable{srv: upstreamServer(name, "hold", nil)}).handler(), gate)
		servers[name] = httpServer(name, url)
	}
	h.Start(servers)
	close(gate)
	if failed := h.Settle(context.Background()); len(failed) > 0 {
		t.Fatalf("Settle = %v", failed)
	}
	seen := heard()
	if len(seen) != 1 {
		t.Fatalf("listeners got %d catalogs, want 1", len(seen))
	}
	for name := range servers {
		if _, ok := seen[0].Tool(name + "__hold"); !ok {
			t.Fatalf("the one catalog lacks %s__hold", name)
		}
	}
}

// recordCatalogs keeps every catalog h's listeners are given; the returned
// func reads them so far.
func recordCatalogs(h *hub.Hub) func() []*hub.Catalog {
	var mu sync.Mutex
	var heard []*hub.Catalog
	h.OnChange(func(c *hub.Catalog) {
		mu.Lock()
		heard = append(heard, c)
		mu.Unlock()
	})
	return func() []*hub.Catalog {
		mu.Lock()
		defer mu.Unlock()
		return append([]*hub.Catalog(nil), heard...)
	}
}

// A server that is the only one starting builds at once: it never waits for
// the arrival window.
func TestServerArrivingAloneIsNotHeld(t *testing.T) {
	h := newHub(t, hub.Options{ArrivalWindow: time.Hour})
	h.Start(map[string]*config.Server{"solo": httpServer("solo", serve(t, upstreamServer("solo", "hold", nil)))})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if failed := h.Settle(ctx); len(failed) > 0 || ctx.Err() != nil {
		t.Fatalf("Settle = %v, %v: the lone server waited for the window", failed, ctx.Err())
	}
	if _, ok := h.Catalog().Tool("solo__hold"); !ok {
		t.Fatal("solo__hold not in the catalog once settled")
	}
}

// While a batch waits for a server still connecting, the server that
// arrived stays out of the catalog (and unsettled, so calls wait for it),
// and Close ends the batch's wait at once.
func TestArrivalWaitingForAHungServerEndsOnClose(t *testing.T) {
	h := hub.New(hub.Options{ArrivalWindow: time.Hour})
	h.Start(map[string]*config.Server{
		"hung": hungServer("hung"),
		"good": httpServer("good", serve(t, upstreamServer("good", "hold", nil))),
	})
	await(t, "good active", func() bool { return status(t, h, "good").Status == hub.StatusActive })
	if _, ok := h.Catalog().Tool("good__hold"); ok {
		t.Fatal("good__hold listed before its batch was built")
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		h.Close(context.Background())
	}()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close still waits for the arrival window")
	}
}
