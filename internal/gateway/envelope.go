package gateway

// rawEnvelope is what the relays read of a message, found by the message
// check's walk (keyscan.go) so that a relayed request is parsed once: the
// raw values of the top-level keys and of the params' keys, matched
// exactly, as go-sdk matches them (its decoder is case-sensitive; the walk
// refuses two keys that differ only in case, so each of these is the only
// one of its kind).
type rawEnvelope struct {
	jsonrpc, id, method, params []byte // nil: the key is missing
	name, args                  []byte // params' name and arguments
	paramsOther                 bool   // params has a key besides those two
}

// top notes the value of a top-level key whose bytes between the quotes
// are raw.
func (e *rawEnvelope) top(raw, value []byte) {
	if !plainKey(raw) {
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
	if !plainKey(raw) {
		raw = []byte(keyText(raw))
	}
	switch string(raw) {
	case "name":
		e.name = value
	case "arguments":
		e.args = value
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
