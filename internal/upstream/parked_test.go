package upstream

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listedShapes are tools whose schemas go-sdk's client-side check keeps
// or drops: header annotations valid, invalid, not one (another case),
// duplicated across nesting levels, and none.
var listedShapes = []*mcp.Tool{
	{Name: "plain", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "string"}, "a": map[string]any{"type": "integer"}}}},
	{Name: "header", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}},
	{Name: "header_on_object", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object", "x-mcp-header": "O"}}}},
	{Name: "header_upper_case", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"o": map[string]any{"type": "object", "X-MCP-Header": "O"}}}},
	{Name: "header_nested_twice", InputSchema: map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string", "x-mcp-header": "Same"},
		"n": map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "string", "x-mcp-header": "same"}}}}}},
	{Name: "no_schema"},
}

// listShapes lists listedShapes from a go-sdk server (whose own AddTool
// would refuse the invalid ones, so its tools/list answer is replaced)
// through a client, with or without parkSchemas.
func listShapes(t *testing.T, park bool) []*mcp.Tool {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "shapes", Version: "1"}, &mcp.ServerOptions{HasTools: true})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			return &mcp.ListToolsResult{Tools: listedShapes}, nil
		}
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ss.Close() }()
	c := mcp.NewClient(&mcp.Implementation{Name: "lister", Version: "1"}, nil)
	if park {
		c.AddSendingMiddleware(parkSchemas)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	tools, err := collect(cs.Tools(ctx, nil))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestParkedSchemasPassGoSDKsCheckAsTheyAre: with parkSchemas, go-sdk's
// client keeps exactly the tools it keeps without (the invalid header
// annotations still drop theirs), and rawSchemas then gives each the JSON
// it gives without parking.
func TestParkedSchemasPassGoSDKsCheckAsTheyAre(t *testing.T) {
	want := listShapes(t, false)
	got := listShapes(t, true)
	names := func(tools []*mcp.Tool) []string {
		var out []string
		for _, tool := range tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if !slices.Equal(names(got), names(want)) {
		t.Fatalf("listed %v with parked schemas, %v without", names(got), names(want))
	}
	if slices.Contains(names(got), "header_on_object") || !slices.Contains(names(got), "plain") {
		t.Fatalf("go-sdk's check did not apply: listed %v", names(got))
	}
	if _, parked := got[0].InputSchema.(parkedSchema); !parked {
		t.Errorf("plain's schema is %T, want it parked", got[0].InputSchema)
	}
	rawSchemas(want)
	rawSchemas(got)
	for i := range got {
		g, err := json.Marshal(got[i])
		if err != nil {
			t.Fatal(err)
		}
		w, err := json.Marshal(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(g) != string(w) {
			t.Errorf("%s: %s parked, %s not", got[i].Name, g, w)
		}
	}
}
