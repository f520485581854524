package upstream

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oddTools are tool definitions as an upstream may list them.
var oddTools = []string{
	`{"name":"a","description":"<b>&</b> caf\u00e9 \u2028 \"q\"","inputSchema":{"type":"object","properties":{"n":{"type":"number","minimum":1.0,"maximum":1e3,"default":-0}}}}`,
	`{"name":"b","title":"B <t>","_meta":{"k":"v","<":[1,2]},"annotations":{"title":"t","readOnlyHint":true},"inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":{"type":"string"}}}}`,
	`{"name":"c","description":""}`,
	`{"name":"d","annotations":{},"inputSchema":{}}`,
	`{"name":"e","annotations":{"destructiveHint":false,"openWorldHint":true,"idempotentHint":true},"inputSchema":{"type":"object"},"icons":[{"src":"https://x/i.png","mimeType":"image/png","sizes":["16x16"]}]}`,
	`{"name":"f","inputSchema":{"type":"object"},"outputSchema":null,"title":""}`,
	`{"name":"\u00e9\ud83d\ude00","inputSchema":{"type":"object","x-mcp-header":"H"},"_meta":{}}`,
	`{"name":"","inputSchema":{"type":"object","required":["a","b"],"properties":{"b":{},"a":{"enum":[null,true,"s",1.5e300]}}}}`,
}

// TestAppendToolIsJSONMarshal holds appendTool to json.Marshal for tools
// as digests sees them (decoded, then rawSchemas), and for the schemas it
// must decline.
func TestAppendToolIsJSONMarshal(t *testing.T) {
	for _, def := range oddTools {
		var tool mcp.Tool
		if err := json.Unmarshal([]byte(def), &tool); err != nil {
			t.Fatalf("%s: %v", def, err)
		}
		rawSchemas([]*mcp.Tool{&tool})
		checkAppendTool(t, &tool)
	}
	for _, tool := range []*mcp.Tool{
		{Name: "nil schemas"},
		{Name: "nil raw", InputSchema: json.RawMessage(nil), OutputSchema: json.RawMessage(nil)},
		{Name: "meta", Meta: mcp.Meta{"a": 1}, Annotations: &mcp.ToolAnnotations{}, Icons: []mcp.Icon{{Source: "s"}}},
	} {
		checkAppendTool(t, tool)
	}
	for _, tool := range []*mcp.Tool{
		{Name: "map", InputSchema: map[string]any{"type": "object"}},
		{Name: "empty raw", InputSchema: json.RawMessage{}},
		{Name: "map out", InputSchema: json.RawMessage(`{}`), OutputSchema: map[string]any{}},
		{Name: "bad meta", InputSchema: json.RawMessage(`{}`), Meta: mcp.Meta{"c": make(chan int)}},
	} {
		if b, ok := appendTool(nil, tool); ok {
			t.Errorf("%s: appendTool wrote %s, want it to decline", tool.Name, b)
		}
	}
}

func checkAppendTool(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	want, err := json.Marshal(tool)
	if err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	got, ok := appendTool([]byte("left over"), tool)
	if !ok || string(got) != "left over"+string(want) {
		t.Fatalf("%s: appendTool %s (%v), json.Marshal %s", tool.Name, got, ok, want)
	}
}

// TestAppendToolKnowsEveryField fails when go-sdk's Tool has a field (or
// a name, or an omitempty) appendTool does not write as listed here: a
// tool's digest must cover its whole definition.
func TestAppendToolKnowsEveryField(t *testing.T) {
	want := []string{
		"Meta _meta,omitempty", "Annotations annotations,omitempty", "Description description,omitempty",
		"InputSchema inputSchema", "Name name", "OutputSchema outputSchema,omitempty",
		"Title title,omitempty", "Icons icons,omitempty",
	}
	var got []string
	for f := range reflect.TypeFor[mcp.Tool]().Fields() {
		got = append(got, f.Name+" "+f.Tag.Get("json"))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("mcp.Tool's fields are %q; appendTool writes %q", got, want)
	}
}

// FuzzAppendTool holds appendTool to json.Marshal for any name, texts and
// schemas.
func FuzzAppendTool(f *testing.F) {
	f.Add("n", "d <&>", "t", `{"type":"object"}`, `{"type":"object"}`, true)
	f.Add("", "", "", `{"a":[1.0,-0,"\u2028"]}`, `null`, false)
	f.Fuzz(func(t *testing.T, name, desc, title, in, out string, hint bool) {
		tool := &mcp.Tool{Name: name, Description: desc, Title: title}
		if hint {
			tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, Title: title}
		}
		for _, s := range []struct {
			src string
			dst *any
		}{{in, &tool.InputSchema}, {out, &tool.OutputSchema}} {
			if err := json.Unmarshal([]byte(s.src), s.dst); err != nil {
				return
			}
		}
		rawSchemas([]*mcp.Tool{tool})
		want, err := json.Marshal(tool)
		got, ok := appendTool(nil, tool)
		if err != nil {
			if ok {
				t.Fatalf("appendTool wrote %s where json.Marshal refused: %v", got, err)
			}
			return
		}
		if !ok || string(got) != string(want) {
			t.Fatalf("appendTool %s (%v), json.Marshal %s", got, ok, want)
		}
	})
}
