package gateway_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// Right after start the face lists weft's built-ins while an upstream is
// still connecting, and a call of that upstream's tool waits for it and is
// served (the face has not registered the tool when the call arrives).
func TestFaceServesCallsMadeWhileUpstreamConnects(t *testing.T) {
	ctx := context.Background()
	gate := make(chan struct{})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		return testutil.NewServer(testutil.ServerOptions{Name: "slow"})
	}, nil)
	url := testutil.ServeGatedHTTP(t, inner, gate)
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames})
	t.Cleanup(func() { h.Close(context.Background()) })
	gw := gateway.New(h, gateway.Options{Version: "test"})
	h.Start(map[string]*config.Server{"slow": {Name: "slow", Type: config.TransportHTTP, Target: url, TimeoutMS: 30_000}})

	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "slow__echo" {
			t.Fatal("a connecting server's tool is listed")
		}
	}
	if len(list.Tools) != len(gateway.BuiltinNames) {
		t.Fatalf("listed %d tools right after start, want the %d built-ins", len(list.Tools), len(gateway.BuiltinNames))
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow__echo", Arguments: map[string]any{"text": "hi"}})
		done <- result{res, err}
	}()
	close(gate)
	if r := <-done; r.err != nil || r.res.IsError {
		t.Fatalf("call during connect: %v %+v", r.err, r.res)
	}
}
