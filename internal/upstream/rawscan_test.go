package upstream

import (
	"bytes"
	"encoding/json"
	"testing"
)

// resultResponseByMap is resultResponse as it was written with a map
// decode: the walk must read every message as it did.
func resultResponseByMap(msg []byte) (id, result json.RawMessage, ok bool) {
	if depth(msg) >= messageDepthLimit {
		return nil, nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil || len(m) != 3 || string(m["jsonrpc"]) != `"2.0"` {
		return nil, nil, false
	}
	id, result = m["id"], m["result"]
	return id, result, len(id) > 0 && len(result) > 0
}

func TestResultResponseReadsAsAMapDecode(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"content":[]}}`,
		" \n{ \"jsonrpc\" : \"2.0\" ,\t\"id\" : 7 , \"result\" : { \"a\" : [1, \"}\\\"]\", {\"b\":null}] } }\r\n",
		`{"result":true,"id":-1.5e3,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":null,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"result":[]}`,
		`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`,
		`{"jsonrpc":"2.0","i\"d":1,"result":{}}`,
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"x":0}`,
		`{"jsonrpc":"2.0","id":1}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"1.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.\u0030","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\\b\"c","result":"x\u00e9\\"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}`,
		`{"jsonrpc":"2.0","id":1,"result":{}} x`,
		`{}`,
		`[]`,
		`"s"`,
		``,
		`{"jsonrpc":"2.0","id":1,"result":` + string(bytes.Repeat([]byte("["), messageDepthLimit)) + string(bytes.Repeat([]byte("]"), messageDepthLimit)) + `}`,
	} {
		wantID, wantResult, wantOK := resultResponseByMap([]byte(msg))
		id, result, ok := resultResponse([]byte(msg))
		if ok != wantOK || ok && (!bytes.Equal(id, wantID) || !bytes.Equal(result, wantResult)) {
			t.Errorf("%s: got %q %q %v, want %q %q %v", msg, id, result, ok, wantID, wantResult, wantOK)
		}
	}
}

func BenchmarkResultResponse(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":"weft-raw-12345","result":{"content":[{"type":"text","text":"hello, world"}],"isError":false}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, ok := resultResponse(msg); !ok {
			b.Fatal("not read")
		}
	}
}
