package upstream

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchTools returns n tools; distinct gives each its own input schema.
func benchTools(n int, distinct bool) []*mcp.Tool {
	tools := make([]*mcp.Tool, n)
	for i := range tools {
		prop := "text"
		if distinct {
			prop = fmt.Sprintf("text%d", i)
		}
		schema := fmt.Sprintf(`{"type":"object","properties":{%q:{"type":"string","description":"text to echo"}},"required":[%q]}`, prop, prop)
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "a tool", InputSchema: json.RawMessage(schema)}
	}
	return tools
}

// BenchmarkDigests measures what listing 1,000 tools costs weft's own
// checks, with one shared schema and with a schema per tool.
func BenchmarkDigests(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		b.Run(fmt.Sprintf("distinct=%v", distinct), func(b *testing.B) {
			tools := benchTools(1000, distinct)
			for b.Loop() {
				digests(tools)
			}
		})
	}
}

// TestDigestsShareVerdictsOnlyForEqualSchemas checks that remembering a
// verdict by schema bytes gives each tool the verdict of its own schemas.
func TestDigestsShareVerdictsOnlyForEqualSchemas(t *testing.T) {
	good := json.RawMessage(`{"type":"object"}`)
	bad := json.RawMessage(`{"type":"string"}`)
	tools := []*mcp.Tool{
		{Name: "a", InputSchema: good},
		{Name: "b", InputSchema: bad},
		{Name: "c", InputSchema: good, OutputSchema: bad},
		{Name: "d", InputSchema: good, OutputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "e", InputSchema: good},
		{Name: "f", InputSchema: map[string]any{"type": "array"}},
	}
	got := digests(tools)
	for _, tool := range tools {
		if want := checkSchema(tool); got[tool].Refused != want {
			t.Errorf("tool %s refused %q, want %q", tool.Name, got[tool].Refused, want)
		}
	}
	if got[tools[0]].Refused != "" || got[tools[1]].Refused == "" {
		t.Fatalf("verdicts %+v", got)
	}
}
