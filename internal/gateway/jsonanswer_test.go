package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestAppendResultMatchesEncodeMessage holds the answer appended by hand
// to go-sdk's encoding of the same response, byte for byte, for every id
// and result it writes, and checks that it leaves the rest to go-sdk.
func TestAppendResultMatchesEncodeMessage(t *testing.T) {
	ids := []any{0.0, 7.0, -3.0, 1e15, "", "a", "weft-raw-12", "<&>", "a b/c",
		"quote\"d", `back\slash`, "tab\t", "é", "\u2028", "\xff"}
	results := []string{`{"content":[]}`, `{ "content" : [ {"type":"text","text":"x"} ] , "isError":false }`,
		`null`, `"s"`, `[1, 2]`, `{"t":"<a href=\"x\">&amp;</a>"}`, `{"t":"` + "\u2028\u2029" + `"}`,
		`{"n":1.5e10,"u":"\u00e9\ud83d\ude00"}`, "\n{\"a\":{}}\t", ``, `{`, `{"a":1}x`, `nul`}
	for _, raw := range ids {
		jid, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, result := range results {
			want, wantErr := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jid, Result: json.RawMessage(result)})
			var buf bytes.Buffer
			ok := appendResult(&buf, jid, json.RawMessage(result))
			if ok && (wantErr != nil || !bytes.Equal(buf.Bytes(), want)) {
				t.Errorf("id %#v, result %q: appended %s, go-sdk %s (%v)", raw, result, buf.Bytes(), want, wantErr)
			}
			if !ok && wantErr == nil && result != "" && plainJSONString(sprintID(raw)) {
				t.Errorf("id %#v, result %q: left to go-sdk, which writes %s", raw, result, want)
			}
			w := httptest.NewRecorder()
			writeJSONResponse(w, jid, json.RawMessage(result), nil)
			if wantErr == nil && !bytes.Equal(w.Body.Bytes(), want) {
				t.Errorf("id %#v, result %q: wrote %s, go-sdk %s", raw, result, w.Body.Bytes(), want)
			}
			if got := w.Header().Get("Content-Type"); wantErr == nil && got != "application/json" {
				t.Errorf("id %#v, result %q: Content-Type %q", raw, result, got)
			}
		}
	}
}

// sprintID is an id as plainJSONString reads it: a number always is.
func sprintID(raw any) string {
	if s, ok := raw.(string); ok {
		return s
	}
	return "0"
}

// BenchmarkWriteJSONResponse is the face's answer to a relayed call with
// a raw result, as weft writes it and as go-sdk's encoder would.
//
//	go test -run '^$' -bench WriteJSONResponse -benchmem ./internal/gateway/
func BenchmarkWriteJSONResponse(b *testing.B) {
	jid, _ := jsonrpc.MakeID(42.0)
	result := json.RawMessage(`{"content":[{"type":"text","text":"hello from the bench echo tool"}],"isError":false}`)
	w := discardWriter{http.Header{}}
	b.Run("weft", func(b *testing.B) {
		for b.Loop() {
			writeJSONResponse(w, jid, result, nil)
		}
	})
	b.Run("go-sdk", func(b *testing.B) {
		for b.Loop() {
			writeJSONMessage(w, 200, &jsonrpc.Response{ID: jid, Result: result})
		}
	})
}

// discardWriter is a ResponseWriter that keeps nothing, so that a
// benchmark counts only what writing an answer costs.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d discardWriter) WriteHeader(int)             {}
