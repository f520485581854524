package upstream

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
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

// TestDialFailsWithoutWaitingForOutrankedLists: a failed tools/list is
// the error Dial reports whatever the other lists do, so Dial ends them
// rather than waiting for them: a prompts/list the server never answers
// does not hold the failure back until the timeout (when the lists went
// out one after another, it was never asked).
func TestDialFailsWithoutWaitingForOutrankedLists(t *testing.T) {
	srv := testServer()
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				return nil, errors.New("no tools today")
			case "prompts/list", "resources/list", "resources/templates/list":
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-t.Context().Done(): // the test failed: let its cleanup end the server
					return nil, context.Canceled
				}
			}
			return next(ctx, method, req)
		}
	})
	url := serveHTTP(t, srv, nil)
	// The lists' own timeout is far longer than the test's patience.
	cfg := &config.Server{Name: "s", Type: config.TransportHTTP, Target: url, TimeoutMS: 600000}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, cfg, Options{Logger: quiet()})
	if err == nil {
		c.Close(context.Background())
		t.Fatal("Dial succeeded; want the tools/list failure")
	}
	if !strings.Contains(err.Error(), "tools/list") || !strings.Contains(err.Error(), "no tools today") {
		t.Errorf("Dial: %v; want the tools/list failure", err)
	}
	if ctx.Err() != nil {
		t.Error("Dial waited for lists whose errors its tools/list failure outranks")
	}
}
