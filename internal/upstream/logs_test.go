package upstream

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDialListsWhileSetLevelIsInFlight: the server answers logging/setLevel
// only once it has been asked for its tools, so Dial succeeds only if it
// lists without waiting for that answer; it still has both answers when it
// returns.
func TestDialListsWhileSetLevelIsInFlight(t *testing.T) {
	srv := testServer()
	listed := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var levelAnswered bool
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/list":
				once.Do(func() { close(listed) })
			case "logging/setLevel":
				select {
				case <-listed:
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-t.Context().Done(): // the test failed: let its cleanup end the server
					return nil, context.Canceled
				}
				defer func() { mu.Lock(); levelAnswered = true; mu.Unlock() }()
			}
			return next(ctx, method, req)
		}
	})
	c := dial(t, serveHTTP(t, srv, nil), Options{})
	if len(c.Inventory().Tools) == 0 {
		t.Fatal("no tools listed")
	}
	mu.Lock()
	defer mu.Unlock()
	if !levelAnswered {
		t.Error("Dial returned before the server answered logging/setLevel")
	}
}
