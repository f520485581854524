package upstream

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResultResponseReadsWhatTheMapReadingRead(t *testing.T) {
	tests := []struct {
		name, msg string
		ok        bool
	}{
		{"a result", `{"jsonrpc":"2.0","id":"weft-raw-1","result":{"content":[{"type":"text","text":"ping"}]}}`, true},
		{"keys in another order, spaces", " { \"result\" : [1, {\"a\":\"}\"}] ,\n\"id\":7 , \"jsonrpc\" : \"2.0\" } ", true},
		{"a literal result", `{"jsonrpc":"2.0","id":-1.5e3,"result":null}`, true},
		{"an escaped quote in a string", `{"jsonrpc":"2.0","id":"a\"b","result":"c\\"}`, true},
		{"an error", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, false},
		{"a key in another case", `{"jsonrpc":"2.0","ID":1,"result":{}}`, false},
		{"an extra key", `{"jsonrpc":"2.0","id":1,"result":{},"method":"x"}`, false},
		{"another version", `{"jsonrpc":"1.0","id":1,"result":{}}`, false},
		{"a key missing", `{"jsonrpc":"2.0","result":{}}`, false},
		{"not an object", `["jsonrpc","id","result"]`, false},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"result":{}`, false},
		{"nested too deeply", `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`, false},
		{"a key written with an escape", `{"jsonrpc":"2.0","\u0069d":1,"result":{}}`, true},
		{"a key twice, the later wins", `{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`, true},
	}
	for _, tt := range tests {
		id, result, ok := resultResponse([]byte(tt.msg))
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
			continue
		}
		wantID, wantResult, wantOK := resultResponseByMap([]byte(tt.msg))
		if ok && (!wantOK || string(id) != string(wantID) || string(result) != string(wantResult)) {
			t.Errorf("%s: read id %s result %s; the map reading: %v %s %s", tt.name, id, result, wantOK, wantID, wantResult)
		}
		if !ok && wantOK {
			t.Errorf("%s: refused what the map reading took", tt.name)
		}
	}
}

func TestResultResponseKeepsNoReferenceToTheLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"x":1}}`)
	id, result, ok := resultResponse(line)
	copy(line, strings.Repeat("#", len(line)))
	if !ok || string(id) != "1" || string(result) != `{"x":1}` {
		t.Errorf("after the line's buffer was reused: %v %s %s", ok, id, result)
	}
}

// BenchmarkResultResponse is the reading of a raw call's result line, on
// the call's path at one call in flight.
func BenchmarkResultResponse(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":"weft-raw-315","result":{"content":[{"type":"text","text":"ping"}]}}`)
	for _, bc := range []struct {
		name string
		read func([]byte) (json.RawMessage, json.RawMessage, bool)
	}{{"split", resultResponse}, {"map", resultResponseByMap}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := bc.read(line); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}
