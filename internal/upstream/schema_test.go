package upstream

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRawSchemasKeepTheSameJSON(t *testing.T) {
	in := map[string]any{"type": "object", "properties": map[string]any{"b": map[string]any{"type": "string"}, "a": map[string]any{"type": "integer"}}}
	tests := []struct {
		name string
		tool *mcp.Tool
	}{
		{"map input schema", &mcp.Tool{Name: "t", InputSchema: in}},
		{"input and output schemas", &mcp.Tool{Name: "t", InputSchema: in, OutputSchema: map[string]any{"type": "object"}}},
		{"already raw", &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before, err := json.Marshal(tc.tool)
			if err != nil {
				t.Fatal(err)
			}
			rawSchemas([]*mcp.Tool{tc.tool})
			if _, ok := tc.tool.InputSchema.(json.RawMessage); !ok {
				t.Errorf("input schema is %T, want json.RawMessage", tc.tool.InputSchema)
			}
			if tc.tool.OutputSchema != nil {
				if _, ok := tc.tool.OutputSchema.(json.RawMessage); !ok {
					t.Errorf("output schema is %T, want json.RawMessage", tc.tool.OutputSchema)
				}
			}
			after, err := json.Marshal(tc.tool)
			if err != nil {
				t.Fatal(err)
			}
			if string(before) != string(after) {
				t.Errorf("JSON changed:\n before %s\n after  %s", before, after)
			}
		})
	}
}
