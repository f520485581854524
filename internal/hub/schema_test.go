package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// nested returns an object schema nesting about n levels deep (each
// property is an object and its properties map: two levels).
func nested(n int) json.RawMessage {
	inner := `{"type":"string"}`
	for range n / 2 {
		inner = `{"type":"object","properties":{"a":` + inner + `}}`
	}
	return json.RawMessage(`{"type":"object","properties":{"a":` + inner + `}}`)
}

// listingServer is a go-sdk server that lists the given tool definitions
// as they are (the SDK's own AddTool refuses some of them) and answers any
// call with its name.
func listingServer(tools []*mcp.Tool) *mcp.Server {
	s := upstreamServer("odd", "hold", nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				return &mcp.ListToolsResult{Tools: tools}, nil
			}
			return next(ctx, method, req)
		}
	})
	return s
}

// A tool whose schema is invalid, not an object, or nested more than 1000
// levels is refused alone: the server's other tools are served, and the
// refused ones are neither counted, found by search nor callable.
func TestInvalidSchemasAreRefusedPerTool(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	h := newHub(t, hub.Options{})
	add(t, h, httpServer("odd", serve(t, listingServer([]*mcp.Tool{
		{Name: "hold", InputSchema: obj},
		{Name: "not_object", InputSchema: json.RawMessage(`{"type":"string"}`)},
		{Name: "bad_keyword", InputSchema: json.RawMessage(`{"type":"object","properties":"nope"}`)},
		{Name: "bad_pattern", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`)},
		{Name: "too_deep", InputSchema: nested(1010)},
		{Name: "deep_enough", InputSchema: nested(900)},
	}))))
	cat := h.Catalog()
	var names []string
	for _, tool := range cat.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "odd__hold,odd__deep_enough" {
		t.Fatalf("catalog = %v; want only the tools with valid schemas", names)
	}
	for _, refused := range []string{"not_object", "bad_keyword", "bad_pattern", "too_deep"} {
		name := "odd__" + refused
		if !strings.Contains(strings.Join(cat.Clashes, "\n"), "tool "+name+" of odd refused: invalid input schema") {
			t.Errorf("no refusal recorded for %s: %v", name, cat.Clashes)
		}
		if hits := cat.Search(refused, 0); len(hits) != 0 {
			t.Errorf("search finds refused %s", name)
		}
		if _, err := h.CallTool(context.Background(), nil, name, nil, nil); !errors.Is(err, hub.ErrUnknownTool) {
			t.Errorf("call of refused %s = %v, want unknown tool", name, err)
		}
	}
	if st := status(t, h, "odd"); st.Tools != 2 {
		t.Fatalf("status counts %d tools, want the 2 served", st.Tools)
	}
	if out, err := hold(context.Background(), h, "odd__hold", 0); err != nil || out != "odd" {
		t.Fatalf("call of a valid tool = %q, %v", out, err)
	}
}
