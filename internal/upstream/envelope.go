package upstream

import (
	"bytes"
	"encoding/json"
)

// resultResponse reads msg as go-sdk would read a response with a result:
// exactly the keys jsonrpc ("2.0"), id and result, matched case-sensitively
// (encoding/json would fold "ID" or "RESULT" into a struct's fields), nested
// less deeply than go-sdk reads. Anything else is left to go-sdk. Both raw
// paths (stdio lines and HTTP streams) take their results through it, so
// they accept the same messages. It walks the object's top level without
// decoding it: a raw call's result line is read on the call's path, where a
// decode into a map cost 5–6 µs per call at one call in flight
// (docs/guides/performance.md, "The floor of a relay at concurrency 1").
// id and result share one copy of msg, whose buffer the caller may reuse.
func resultResponse(msg []byte) (id, result json.RawMessage, ok bool) {
	if depth(msg) >= messageDepthLimit || !json.Valid(msg) {
		return nil, nil, false
	}
	var version []byte
	// What json.Unmarshal into a map of the three keys would give: a later
	// duplicate wins, any other key fails.
	ok = topFields(msg, func(key, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			id = value
		case "result":
			result = value
		default:
			return false
		}
		return true
	})
	if !ok || string(version) != `"2.0"` || len(id) == 0 || len(result) == 0 {
		return nil, nil, false
	}
	own := bytes.Clone(msg)
	return own[offset(msg, id):][:len(id):len(id)], own[offset(msg, result):][:len(result):len(result)], true
}

// offset is where sub, a slice of msg's bytes, starts in msg.
func offset(msg, sub []byte) int { return cap(msg) - cap(sub) }

// resultOfList is resultResponse for the response to one of weft's own
// tools/list requests: it reads the envelope as strictly, but only steps
// over the result, which toolPage.read then reads strictly to its last
// byte, within go-sdk's nesting limit, or hands the list to go-sdk.
// json.Valid and depth over a page of 1,000 tools, which that read does
// again, were about 10 ms of a start at 10 upstreams
// (docs/guides/performance.md, "Fan-in: the list's result read once").
// A message it declines (a duplicate key included) goes on to go-sdk's
// decode, as one resultResponse declines does.
func resultOfList(msg []byte) (id, result json.RawMessage, ok bool) {
	p := canonParser{jsonWalk: jsonWalk{data: msg}}
	var version []byte
	p.space()
	ok = p.members(func(key string, p *canonParser) bool {
		start := p.pos
		var read bool
		switch key {
		case "result":
			read = p.skipRaw()
			result = msg[start:p.pos]
		case "id":
			read = p.skip()
			id = msg[start:p.pos]
		case "jsonrpc":
			read = p.skip()
			version = msg[start:p.pos]
		}
		return read
	})
	p.space()
	if !ok || p.pos != len(msg) || string(version) != `"2.0"` || len(id) == 0 || len(result) == 0 {
		return nil, nil, false
	}
	own := bytes.Clone(msg)
	return own[offset(msg, id):][:len(id):len(id)], own[offset(msg, result):][:len(result):len(result)], true
}
