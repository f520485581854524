package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// FuzzCheckMessageMatchesTokenizer checks the one-pass check against the
// tokenizer-based check it replaced (kept here as the reference): the same
// refusal for every body.
func FuzzCheckMessageMatchesTokenizer(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","ID":1.5,"method":"ping"}`,
		`{"id":9007199254740992}`, `{"id":-0}`, `{"id":01}`, `{"id":"x"} `, `{"id":1} x`,
		`{"params":{"name":"a","Name":"b"}}`, `{"a":[{"b":1,"B":2}]}`, `{"\u0069d":2.5}`,
		` [`, `{"a":`, `"str"`, `{"\u004e":1,"n":2}`, `{"K":1,"\u212a":2}`, `{"a":{"":1,"":2}}`, `{"ıd":1.5}`, `1e700`, `{"a":1e700,"A":1`,
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"A":18}`,
		// More keys open than the walker's first room for them (nine), a
		// repeat met deepest, then one met after the deep keys are gone.
		`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":1,"K":2}}}}}}}}}}`,
		`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":1}}}}}}}},"x":1,"B":2}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := checkMessage(body), tokenizerCheck(body)
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Fatalf("body %q: got %+v, want %+v", body, got, want)
		}
	})
}

// tokenizerCheck is the message check as it was before the one-pass walk.
func tokenizerCheck(body []byte) *Refusal {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return &Refusal{jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not accepted; send one message per request"}
	}
	if r := checkTokens(body, trimmed); r != nil {
		return r
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &head) == nil && !regexpIDOK(head.ID) {
		return &Refusal{jsonrpc.CodeInvalidRequest, fmt.Sprintf("id %s refused: use a string or an integer between -%d and %d", truncateID(head.ID), maxSafeID, maxSafeID)}
	}
	return nil
}

func regexpIDOK(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" || s[0] == '"' {
		return true
	}
	if !regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`).MatchString(s) {
		return false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n <= maxSafeID && n >= -maxSafeID
}

func TestCheckMessageDeepAndWide(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`)
	}
	wide := `{"params":{`
	for i := range 500 {
		wide += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	for _, body := range [][]byte{deep(998), deep(999), deep(1000), deep(20000), []byte(wide + `"K7":1}}`), []byte(wide + `"z":1}}`)} {
		got, want := checkMessage(body), tokenizerCheck(body)
		if (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Errorf("body of %d bytes: got %+v, want %+v", len(body), got, want)
		}
	}
}
