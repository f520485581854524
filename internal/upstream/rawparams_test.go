package upstream

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRawCallParamsEncodeAsTheTypedParams keeps json.Marshal of the typed
// params, with the _meta requestMeta and track make, as the oracle of the
// raw call's params: the same JSON values, whatever _meta holds.
func TestRawCallParamsEncodeAsTheTypedParams(t *testing.T) {
	tests := []struct {
		name  string
		args  json.RawMessage
		meta  mcp.Meta
		extra map[string]any
	}{
		{name: "no meta, no arguments"},
		{name: "delegation depth only", args: json.RawMessage(`{"text":"hi"}`), meta: mcp.Meta{"weft/delegationDepth": 1}},
		{name: "client identity dropped", args: json.RawMessage(`{}`), meta: mcp.Meta{
			mcp.MetaKeyProtocolVersion: "2026-07-28", mcp.MetaKeyClientInfo: &mcp.Implementation{Name: "c", Version: "1"},
			mcp.MetaKeyClientCapabilities: map[string]any{"roots": map[string]any{}}, "weft/delegationDepth": 2}},
		{name: "only identity keys", meta: mcp.Meta{mcp.MetaKeyProtocolVersion: "2026-07-28"}},
		{name: "token replaced, level added", args: json.RawMessage(`{"a":[1,2]}`),
			meta:  mcp.Meta{"progressToken": "client-7", "b": true, "a": nil, "f": 1.5, "s": "<&>é\n", "n": int64(3)},
			extra: map[string]any{"progressToken": int64(12), mcp.MetaKeyLogLevel: mcp.LoggingLevel("debug")}},
		{name: "odd name", args: json.RawMessage(`{}`), meta: mcp.Meta{"k\"ey": []any{"x", 2.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "echo"
			if tt.name == "odd name" {
				name = `na"me<`
			}
			got, err := rawCallParams(name, tt.args, tt.meta, tt.extra)
			if err != nil {
				t.Fatal(err)
			}
			meta := (&Conn{}).requestMetaOf(tt.meta)
			for k, v := range tt.extra {
				if meta == nil {
					meta = mcp.Meta{}
				}
				meta[k] = v
			}
			typed := &mcp.CallToolParams{Name: name, Meta: meta, Arguments: json.RawMessage("{}")}
			if len(tt.args) > 0 {
				typed.Arguments = tt.args
			}
			want, err := json.Marshal(typed)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("raw params\n got %s\nwant %s", got, want)
			}
		})
	}
}

// requestMetaOf is requestMeta for a legacy upstream (nothing added).
func (c *Conn) requestMetaOf(m mcp.Meta) mcp.Meta {
	out := cloneMeta(m)
	for k := range out {
		if clientIdentityKey(k) {
			delete(out, k)
		}
	}
	return orNil(out)
}

func BenchmarkRawCallParams(b *testing.B) {
	meta := mcp.Meta{"weft/delegationDepth": 1}
	args := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rawCallParams("echo", args, meta, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypedCallParams is what the raw call's params cost before
// rawCallParams: the _meta copied, the typed params marshalled.
func BenchmarkTypedCallParams(b *testing.B) {
	meta := mcp.Meta{"weft/delegationDepth": 1}
	args := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		p := &mcp.CallToolParams{Name: "echo", Meta: (&Conn{}).requestMetaOf(meta), Arguments: args}
		if _, err := json.Marshal(p); err != nil {
			b.Fatal(err)
		}
	}
}
