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

// plainResultByStruct is plainResult as it was written with a struct
// decode: the walk must read every result as it did.
func plainResultByStruct(raw json.RawMessage) (rawShape, bool) {
	var shape rawShape
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(raw, &shape) != nil {
		return shape, false
	}
	content := bytes.TrimSpace(shape.Content)
	inputs := bytes.TrimSpace(shape.InputRequests)
	return shape, len(content) > 0 && content[0] == '[' && (len(inputs) == 0 || bytes.Equal(inputs, []byte("null")))
}

func TestPlainResultReadsAsAStructDecode(t *testing.T) {
	for _, raw := range []string{
		`{"content":[]}`,
		`{"content":[{"type":"text","text":"a]}"}],"isError":true}`,
		` { "content" : [ ] , "isError" : false } `,
		`{"Content":[],"ISERROR":true}`,
		`{"content":[],"isError":true,"isError":null}`,
		`{"content":[],"isError":"yes"}`,
		`{"content":[],"isError":1}`,
		`{"content":[],"content":{}}`,
		`{"content":{},"content":[]}`,
		`{"content":null}`,
		`{"content":[],"inputRequests":null}`,
		`{"content":[],"inputRequests":{"a":{}}}`,
		`{"content":[],"inputrequests":{}}`,
		`{"content":[],"structuredContent":{"content":5},"_meta":{}}`,
		`{"\u0063ontent":[]}`,
		`{"content\u212a":[]}`,
		`{"content":[],"i\u017fError":true}`,
		`{"content":[],"iſError":true}`,
		`{"content":[],"\u0130sError":true}`,
		`{"contents":[]}`,
		`{"content":[]`,
		`{"content":[]}]`,
		`{}`,
		`[]`,
		``,
	} {
		want, wantOK := plainResultByStruct(json.RawMessage(raw))
		got, ok := plainResult(json.RawMessage(raw))
		if ok != wantOK || ok && got.IsError != want.IsError {
			t.Errorf("%s: got %v %v, want %v %v", raw, got.IsError, ok, want.IsError, wantOK)
		}
	}
}

// FuzzResultResponse holds the walk to the map decode it replaced on every
// input, and to a reading that keeps nothing of the line's buffer.
func FuzzResultResponse(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		` {"result":[1,"]\"}"],"id":-1e999,"jsonrpc":"2.0"} `,
		"{\"jsonrpc\":\"2.0\",\"id\xff\":1,\"result\":{}}",
		`{"jsonrpc":"2.0","ID":1,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		wantID, wantResult, wantOK := resultResponseByMap(msg)
		line := bytes.Clone(msg)
		id, result, ok := resultResponse(line)
		for i := range line {
			line[i] = '#'
		}
		if ok != wantOK || ok && (!bytes.Equal(id, wantID) || !bytes.Equal(result, wantResult)) {
			t.Errorf("%q: got %q %q %v, want %q %q %v", msg, id, result, ok, wantID, wantResult, wantOK)
		}
	})
}

// FuzzPlainResult holds the walk to the struct decode it replaced.
func FuzzPlainResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[],"isError":true}`,
		`{"Content":[],"ISERROR":true,"isError":null}`,
		`{"content":[],"iſError":true,"inputRequests":null}`,
		`{"\u0063ontent":[],"isError":1e999}`,
		"{\"content\xff\":[],\"isError\":false}",
		`{"content":{},"content":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wantOK := plainResultByStruct(raw)
		got, ok := plainResult(raw)
		if ok != wantOK || ok && (got.IsError != want.IsError || !bytes.Equal(got.Content, want.Content) ||
			!bytes.Equal(got.InputRequests, want.InputRequests)) {
			t.Errorf("%q: got %+v %v, want %+v %v", raw, got, ok, want, wantOK)
		}
	})
}
