package upstream

import (
	"encoding/json"
	"strings"
	"testing"

	sdkjson "github.com/segmentio/encoding/json" // go-sdk's client decodes with it
)

// adversarialJSON are documents whose canonical form depends on how a
// decoder reads numbers, escapes, invalid UTF-8 and duplicate keys.
var adversarialJSON = []string{
	`1.0`, `1e21`, `1e20`, `-0`, `-0.0`, `0e5`, `-0e-3`, `1e-7`, `1e-6`, `0.000001`, `1E+2`, `123456789012345`,
	`1234567890123456`, `12345678901234567890`, `-9007199254740993`, `9007199254740993`, `1e400`, `-1e400`, `1e-400`,
	`4.9e-324`, `2.2250738585072011e-308`, `0.1`, `100`, `-1`, `00`, `01`, `1.`, `.5`, `+1`, `1e`, `-`, `--1`,
	`"\u0041\u00e9\u2028\u2029<>&\ud83d\ude00"`, `"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud83d\ude00\ud83d"`,
	`"\uDBFF\uDFFF"`, `"\u0000\u001f"`, `"\/\b\f\n\r\t\"\\"`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"\xff\"", "\"\xc3\x28\"",
	"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"a\x01\"", "\"\u2028\"", "\"\xe2\x80\xa8\"", "\"\xef\xbf\xbd\"",
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"b":1,"a":{"d":[],"c":{}}}`, `{"é":1,"e":2,"":3}`, `{"a" : [ 1 , {"x":null} ] }`,
	`[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `[`, `{`, `]`, `"`, `nul`, `truee`, `[true false]`, `{"a":1}{}`, ` [ ] `, "\t{}\n",
	strings.Repeat("[", 991) + strings.Repeat("]", 991), strings.Repeat("[", 990) + strings.Repeat("]", 990),
}

// checkCanonical holds canonical to json.Marshal of what encoding/json
// and go-sdk's decoder (segmentio's) make of doc: when canonical writes
// bytes, both decoders must accept doc and their values encode to them.
func checkCanonical(t *testing.T, doc string) (accepted bool) {
	t.Helper()
	got, ok := canonical([]byte("prefix"), []byte(doc))
	if !ok {
		return false
	}
	if !strings.HasPrefix(string(got), "prefix") {
		t.Fatalf("%q: canonical dropped what dst held: %q", doc, got)
	}
	got = got[len("prefix"):]
	var std, sdk any
	if err := json.Unmarshal([]byte(doc), &std); err != nil {
		t.Fatalf("%q: canonical wrote %s where encoding/json fails: %v", doc, got, err)
	}
	if err := sdkjson.Unmarshal([]byte(doc), &sdk); err != nil {
		t.Fatalf("%q: canonical wrote %s where go-sdk's decoder fails: %v", doc, got, err)
	}
	for _, v := range []any{std, sdk} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if string(got) != string(want) {
			t.Fatalf("%q: canonical %s, json.Marshal of the decoded value %s", doc, got, want)
		}
	}
	return true
}

func TestCanonicalIsMarshalOfTheDecodedValue(t *testing.T) {
	for _, doc := range append(append([]string{}, oddSchemas...), adversarialJSON...) {
		checkCanonical(t, doc)
	}
}

// TestCanonicalAcceptsWhatSchemasHold: the raw list is only worth having
// if the schemas servers send are not declined.
func TestCanonicalAcceptsWhatSchemasHold(t *testing.T) {
	for _, doc := range []string{
		oddSchemas[0], oddSchemas[1], oddSchemas[2], oddSchemas[3], oddSchemas[4],
		`{"type":"object","properties":{"path":{"type":"string","description":"A path <not> \"quoted\" & café"},"n":{"type":"number","minimum":-1.5,"maximum":1e3,"default":0}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`1.0`, `1e21`, `-0`, `12345678901234567890`, `"\ud83d\ude00"`, `{"é":1,"e":2}`,
	} {
		if !checkCanonical(t, doc) {
			t.Errorf("canonical declined %s", doc)
		}
	}
	for _, doc := range []string{`{"a":1,"a":2}`, `"\ud800"`, "\"\xff\"", `1e400`, `{"a":1}{}`, strings.Repeat("[", 991) + strings.Repeat("]", 991)} {
		if _, ok := canonical(nil, []byte(doc)); ok {
			t.Errorf("canonical accepted %q, want it to decline", doc)
		}
	}
}

// FuzzCanonical holds canonical to both decoders over any document.
func FuzzCanonical(f *testing.F) {
	for _, doc := range append(append([]string{}, oddSchemas...), adversarialJSON...) {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkCanonical(t, doc)
	})
}
