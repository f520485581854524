package upstream

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// A flood of list_changed costs one re-list per interval: a re-list in
// flight absorbs later notifications, and the next waits out the interval
// (here longer than the test), however many arrive.
func TestFloodOfListChangedIsDebounced(t *testing.T) {
	var lists atomic.Int64
	srv := testutil.NewEchoServer("flood", 3)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	relisted := make(chan struct{}, 16)
	cfg := &config.Server{Name: "flood", Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, srv), TimeoutMS: 10_000}
	c, err := Dial(context.Background(), cfg, Options{RelistInterval: time.Hour, OnInventory: func() { relisted <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	if n := lists.Load(); n != 1 {
		t.Fatalf("%d tools/list while connecting, want 1", n)
	}
	for range 1000 {
		c.markDirty() // what each notifications/tools/list_changed does
	}
	<-relisted
	for range 1000 {
		c.markDirty()
	}
	c.Close(context.Background())
	if n := lists.Load(); n != 2 {
		t.Fatalf("2000 list_changed cost %d re-lists, want 1 (plus the first list)", n-1)
	}
	if len(relisted) != 0 {
		t.Fatalf("listeners were told %d more times", len(relisted))
	}
}
