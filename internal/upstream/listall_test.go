package upstream

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDialAsksForEveryListAtOnce: the server answers none of its lists
// until it has been asked for all four, so Dial succeeds only if it sends
// them together; the inventory then holds every kind.
func TestDialAsksForEveryListAtOnce(t *testing.T) {
	lists := map[string]bool{"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true}
	srv := testServer()
	all := make(chan struct{})
	var mu sync.Mutex
	asked := map[string]bool{}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !lists[method] {
				return next(ctx, method, req)
			}
			mu.Lock()
			if !asked[method] {
				asked[method] = true
				if len(asked) == len(lists) {
					close(all)
				}
			}
			mu.Unlock()
			select {
			case <-all:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-t.Context().Done(): // the test failed: let its cleanup end the server
				return nil, context.Canceled
			}
			return next(ctx, method, req)
		}
	})
	inv := dial(t, serveHTTP(t, srv, nil), Options{}).Inventory()
	if len(inv.Tools) == 0 || len(inv.Resources) == 0 || len(inv.Templates) == 0 || len(inv.Prompts) == 0 {
		t.Fatalf("inventory: %d tools, %d resources, %d templates, %d prompts; want some of each",
			len(inv.Tools), len(inv.Resources), len(inv.Templates), len(inv.Prompts))
	}
}
