package gateway

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// TestBuiltinSchemasKeepTheirContract: the built-ins' schemas now come
// from Go types, and clients rely on their names, argument names, required
// arguments, enums and minimums staying what they were.
func TestBuiltinSchemasKeepTheirContract(t *testing.T) {
	ctx := context.Background()
	cs := emptyFace(t)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	tools := map[string]schema{}
	outputs := map[string]bool{}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s schema
		if err := json.Unmarshal(b, &s); err != nil || s.Type != "object" {
			t.Fatalf("%s: input schema %s is not an object schema", tool.Name, b)
		}
		tools[tool.Name] = s
		outputs[tool.Name] = tool.OutputSchema != nil
	}
	cases := []struct {
		tool     string
		required []string
		props    map[string]string // property → a fragment its schema must hold ("" for any)
		output   bool
	}{
		{searchToolName, nil, map[string]string{"query": `"type":"string"`, "limit": `"minimum":1`}, true},
		{callToolName, []string{"name"}, map[string]string{"name": `"type":"string"`, "arguments": `"type":"object"`}, false},
		{ManageToolName, []string{"action"}, map[string]string{"action": `"enum":["list","add","remove"]`, "name": "", "target": "", "args": "", "env": "", "headers": "", "type": `"enum":["stdio","http","sse"]`}, false},
		{planListName, nil, map[string]string{}, true},
		{planShowName, []string{"id"}, map[string]string{"id": `"type":"string"`}, false},
		{planDryName, []string{"id"}, map[string]string{"id": "", "vars": `"type":"object"`}, false},
		{planRunName, []string{"id"}, map[string]string{"id": "", "vars": "", "max_parallel": `"minimum":1`, "resume": `"type":"boolean"`, "max_calls": `"minimum":0`}, false},
		{delegateToolName, []string{"task"}, map[string]string{"task": `"type":"string"`, "allowed_tools": "", "max_turns": `"minimum":3`}, false},
	}
	for _, tc := range cases {
		s, ok := tools[tc.tool]
		if !ok {
			t.Errorf("%s is not listed", tc.tool)
			continue
		}
		if !slices.Equal(s.Required, tc.required) {
			t.Errorf("%s: required %v, want %v", tc.tool, s.Required, tc.required)
		}
		if len(s.Properties) != len(tc.props) {
			t.Errorf("%s: %d properties, want %d", tc.tool, len(s.Properties), len(tc.props))
		}
		for p, frag := range tc.props {
			raw, ok := s.Properties[p]
			if !ok || !containsJSON(raw, frag) {
				t.Errorf("%s.%s: schema %s, want it to hold %s", tc.tool, p, raw, frag)
			}
		}
		if outputs[tc.tool] != tc.output {
			t.Errorf("%s: output schema present %v, want %v", tc.tool, outputs[tc.tool], tc.output)
		}
	}
}

func containsJSON(raw json.RawMessage, frag string) bool {
	return frag == "" || json.Valid(raw) && strings.Contains(string(raw), frag)
}

// emptyFace connects an in-memory client to a gateway over a hub with no
// servers: only weft's own tools and handlers answer.
func emptyFace(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	h := hub.New(hub.Options{Reserved: BuiltinNames})
	t.Cleanup(func() { h.Close(ctx) })
	g := New(h, Options{Version: "test"})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := g.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
