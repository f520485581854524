package upstream

import (
	"bytes"
	"encoding/json"
	"mime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestPostBodyMatchesEncodeMessage holds the posted request's body to
// go-sdk's encoding of the same request, byte for byte, and its refusal
// of params that are not JSON.
func TestPostBodyMatchesEncodeMessage(t *testing.T) {
	params := []string{`{"name":"echo","arguments":{}}`, `{ "name" : "e", "arguments" : { "t" : [1, 2] } }`,
		`{"_meta":{"progressToken":"weft-raw-1"},"name":"<&>","arguments":{"s":"` + "\u2028" + `é"}}`,
		"\n{\"name\":\"x\"}\t", `null`, ``, `{`, `{"a":1}x`}
	for _, method := range []string{"tools/call", "tools/list", "a<b"} {
		for _, n := range []int64{1, 42, 1 << 40} {
			id, err := postCallID(n)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range params {
				want, wantErr := jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id.id, Method: method, Params: json.RawMessage(p)})
				got, err := postBody(id, method, json.RawMessage(p))
				if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
					t.Errorf("%s %d %q: %s (%v), go-sdk %s (%v)", method, n, p, got, err, want, wantErr)
				}
			}
		}
	}
}

// BenchmarkPostBody is a posted tools/call's body, as weft writes it and
// as go-sdk's encoder would.
//
//	go test -run '^$' -bench PostBody -benchmem ./internal/upstream/
func BenchmarkPostBody(b *testing.B) {
	id, _ := postCallID(12345)
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello from the bench"}}`)
	b.Run("weft", func(b *testing.B) {
		for b.Loop() {
			_, _ = postBody(id, "tools/call", params)
		}
	})
	b.Run("go-sdk", func(b *testing.B) {
		for b.Loop() {
			_, _ = jsonrpc.EncodeMessage(&jsonrpc.Request{ID: id.id, Method: "tools/call", Params: params})
		}
	})
}

// TestMediaTypeReadsAsParseMediaType checks the shortcut for the plain
// Content-Types against mime.ParseMediaType's reading.
func TestMediaTypeReadsAsParseMediaType(t *testing.T) {
	for _, v := range []string{"text/event-stream", "application/json", "application/json; charset=utf-8",
		"Text/Event-Stream", " text/event-stream", "text/html", "", "nonsense/"} {
		want, _, _ := mime.ParseMediaType(v)
		if got := mediaType(v); got != want {
			t.Errorf("mediaType(%q) = %q, mime.ParseMediaType reads %q", v, got, want)
		}
	}
}
