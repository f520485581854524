package upstream

import (
	"encoding/json"
	"math"
	"testing"

	sdkjson "github.com/segmentio/encoding/json" // go-sdk's client decodes with it
)

// oddSchemas are JSON values as an upstream may send them in a schema.
var oddSchemas = []string{
	`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["b","a"]}`,
	`{"description":"<b>&amp;</b> \u00e9t\u00e9 caf\u00e9 \u2028\u2029 \ud83d\ude00 \"q\" \\ \/ \n\t\b\f\r \u0001\u001f\u007f"}`,
	`{"numbers":[1.0,1e3,-0,0,-1.5e-7,0.000001,0.0000001,1e20,1e21,12345678901234567890,3.141592653589793,5e-324,1.7976931348623157e308,-123.456]}`,
	`{"\u00e9":1,"e":2,"<":3,"&":4,"":5,"Z":6,"a b":7}`,
	`{"nested":{"a":[{"b":[[],{}]},null,true,false,"s"]},"$defs":{"d":{"enum":[1,"a",true,null]}}}`,
	`{"lone":"\udc00 \ud800x"}`,
	`[]`, `{}`, `null`, `"s"`, `0`, `true`,
	` { "spaced" : [ 1 , 2 ] } `,
}

// TestMarshalDecodedIsJSONMarshal holds marshalDecoded to json.Marshal
// over decoded odd schemas and values a decoder never makes.
func TestMarshalDecodedIsJSONMarshal(t *testing.T) {
	for _, s := range oddSchemas {
		var v, w any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		checkMarshalDecoded(t, v)
		if err := sdkjson.Unmarshal([]byte(s), &w); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		checkMarshalDecoded(t, w)
	}
	for _, v := range []any{"\xff\xfe invalid", map[string]any{"\xff": "\x80"}, []any(nil), map[string]any(nil), math.Copysign(0, -1), 1e-7, 1e-300} {
		checkMarshalDecoded(t, v)
	}
	for _, v := range []any{math.NaN(), math.Inf(1), map[string]any{"c": make(chan int)}, map[string]string{"a": "b"}, []any{1}, json.Number("1")} {
		if b, ok := marshalDecoded(v); ok {
			t.Errorf("%#v: marshalDecoded wrote %s, want it to decline", v, b)
		}
	}
}

func checkMarshalDecoded(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%#v: %v", v, err)
	}
	got, ok := marshalDecoded(v)
	if !ok || string(got) != string(want) {
		t.Fatalf("%#v: marshalDecoded %s (%v), json.Marshal %s", v, got, ok, want)
	}
}

// FuzzMarshalDecoded holds marshalDecoded to json.Marshal for any JSON
// value decoded, any string and any number.
func FuzzMarshalDecoded(f *testing.F) {
	for _, s := range oddSchemas {
		f.Add(s, "s", 1.5)
	}
	f.Fuzz(func(t *testing.T, doc, s string, n float64) {
		var v any
		if json.Unmarshal([]byte(doc), &v) == nil {
			checkMarshalDecoded(t, v)
		}
		var w any
		if sdkjson.Unmarshal([]byte(doc), &w) == nil {
			checkMarshalDecoded(t, w)
		}
		checkMarshalDecoded(t, map[string]any{s: s, "n": []any{s}})
		if !math.IsNaN(n) && !math.IsInf(n, 0) {
			checkMarshalDecoded(t, n)
		}
	})
}
