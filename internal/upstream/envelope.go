package upstream

import (
	"bytes"
	"encoding/json"
)

// resultResponse reads msg as go-sdk would read a response with a result:
// exactly the keys jsonrpc ("2.0"), id and result, matched case-sensitively
// (encoding/json would fold "ID" or "RESULT" into a struct's fields), nested
// less deeply than go-sdk reads. Anything else is left to go-sdk, including
// a key written with an escape or twice. Both raw paths (stdio lines and
// HTTP streams) take their results through it, so they accept the same
// messages. It splits the object's top level without decoding it: a raw
// call's result line is read on the call's path, where a decode into a map
// cost 5–6 µs per call at one call in flight (docs/guides/performance.md,
// "The floor of a relay at concurrency 1"). id and result share one copy of
// msg.
func resultResponse(msg []byte) (id, result json.RawMessage, ok bool) {
	if depth(msg) >= messageDepthLimit || !json.Valid(msg) {
		return nil, nil, false
	}
	var version, idAt, resultAt [2]int
	seen, keys := 0, 0
	i := skipSpace(msg, 0)
	if msg[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(msg, i+1)
	for msg[i] == '"' {
		keyEnd := stringEnd(msg, i)
		key := msg[i+1 : keyEnd-1]
		at := skipSpace(msg, skipSpace(msg, keyEnd)+1) // past the colon
		end := valueEnd(msg, at)
		switch string(key) {
		case "jsonrpc":
			version, seen = [2]int{at, end}, seen|1
		case "id":
			idAt, seen = [2]int{at, end}, seen|2
		case "result":
			resultAt, seen = [2]int{at, end}, seen|4
		default:
			return nil, nil, false
		}
		if keys++; keys > 3 { // a fourth key, or one of the three again
			return nil, nil, false
		}
		if i = skipSpace(msg, end); msg[i] == ',' {
			i = skipSpace(msg, i+1)
		}
	}
	if seen != 7 || string(msg[version[0]:version[1]]) != `"2.0"` {
		return nil, nil, false
	}
	own := bytes.Clone(msg)
	return own[idAt[0]:idAt[1]:idAt[1]], own[resultAt[0]:resultAt[1]:resultAt[1]], true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at i
// (b is valid JSON).
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the index just past the value that starts at i (b is
// valid JSON).
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		nest := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				nest++
			case '}', ']':
				if nest--; nest == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for ; i < len(b); i++ { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}
