package upstream

import (
	"crypto/sha256"
	"encoding/json"
	"math"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/tooldigest"
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

// TestDigestsAreTheOldComputation holds each digest to how it was computed
// before one encoding served both: Pin by tooldigest.Pin (the pins on
// disk), Def by hashing json.Marshal of the tool.
func TestDigestsAreTheOldComputation(t *testing.T) {
	var tools []*mcp.Tool
	for _, def := range []string{
		`{"name":"a","description":"<b>&</b> caf\u00e9","inputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":1.0,"maximum":1e3,"default":-0}}}}`,
		`{"name":"b","title":"B","_meta":{"k":"v"},"annotations":{"title":"t","readOnlyHint":true},"inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`,
		`{"name":"c","description":""}`,
	} {
		var tool mcp.Tool
		if err := json.Unmarshal([]byte(def), &tool); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, &tool)
	}
	tools = append(tools, &mcp.Tool{Name: "unencodable", InputSchema: map[string]any{"c": make(chan int)}})
	rawSchemas(tools)
	got := digests(tools)
	for _, tool := range tools {
		if want := tooldigest.Pin(tool); got[tool].Pin != want {
			t.Errorf("%s: pin %s, want %s", tool.Name, got[tool].Pin, want)
		}
		var want [32]byte
		if b, err := json.Marshal(tool); err == nil {
			want = sha256.Sum256(b)
		}
		if got[tool].Def != want {
			t.Errorf("%s: definition digest %x, want %x", tool.Name, got[tool].Def, want)
		}
	}
}

// A tool whose definition json.Marshal refuses has no digest that tells
// its changes apart: it is refused, with the reason, not served.
func TestDigestsRefuseAToolThatCannotBeEncoded(t *testing.T) {
	tool := &mcp.Tool{Name: "odd", InputSchema: json.RawMessage(`{"type":"object"}`), Meta: mcp.Meta{"x": math.Inf(1)}}
	tools := []*mcp.Tool{tool}
	rawSchemas(tools)
	got := digests(tools)[tool].Refused
	if want := "its definition cannot be encoded as JSON (json: unsupported value: +Inf)"; got != want {
		t.Errorf("refusal %q, want %q", got, want)
	}
}
