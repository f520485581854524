package gateway

import "encoding/json"

// rawEnvelope is what the relays read of a message, found by the message
// check's walk (keyscan.go) so that a relayed request is parsed once: the
// raw values of the top-level keys and of the params' keys, matched
// exactly, as go-sdk matches them (its decoder is case-sensitive; the walk
// refuses two keys that differ only in case, so each of these is the only
// one of its kind).
type rawEnvelope struct {
	jsonrpc, id, method, params []byte // nil: the key is missing
	name, args, meta            []byte // params' name, arguments and _meta
	paramsOther                 bool   // params has a key besides name and arguments
	// topKeys and paramsKeys count the keys of the message and of its
	// params object; decodedKeys is set when one of them is written with
	// escapes or non-ASCII bytes. The stateless relay takes a call only
	// when the keys it knows are all there are, each written as itself.
	topKeys, paramsKeys int
	decodedKeys         bool
}

// top notes the value of a top-level key whose bytes between the quotes
// are raw.
func (e *rawEnvelope) top(raw, value []byte) {
	e.topKeys++
	if !plainKey(raw) {
		e.decodedKeys = true
		raw = []byte(keyText(raw))
	}
	switch string(raw) {
	case "jsonrpc":
		e.jsonrpc = value
	case "id":
		e.id = value
	case "method":
		e.method = value
	case "params":
		e.params = value
	}
}

// param notes the value of a key of the params object.
func (e *rawEnvelope) param(raw, value []byte) {
	e.paramsKeys++
	if !plainKey(raw) {
		e.decodedKeys = true
		raw = []byte(keyText(raw))
	}
	switch string(raw) {
	case "name":
		e.name = value
	case "arguments":
		e.args = value
	case "_meta":
		e.meta = value
		e.paramsOther = true
	default:
		e.paramsOther = true
	}
}

// keyIs reports whether a key whose bytes between the quotes are raw is
// name once decoded.
func keyIs(raw []byte, name string) bool {
	if plainKey(raw) {
		return string(raw) == name
	}
	return keyText(raw) == name
}

// walkedEnvelope is raw, what the message check's walk found in body, or
// with no walk to hand (a body that did not come through checkBody) what
// a walk of body finds; false when body is not valid JSON or the walk
// stopped (a key that repeats, too deep a nesting).
func walkedEnvelope(body []byte, raw *rawEnvelope) (*rawEnvelope, bool) {
	if raw != nil {
		return raw, true
	}
	if !json.Valid(body) {
		return nil, false
	}
	scan := scanValid(body)
	if scan.dup || scan.tooDeep {
		return nil, false
	}
	return &scan.env, true
}
