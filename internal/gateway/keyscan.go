package gateway

import (
	"encoding/json"
	"strings"
)

// validScan is what scanValid found in a message that is valid JSON.
type validScan struct {
	dup     bool            // a key repeats another of its object, ignoring case
	dupKey  string          // the first such key
	tooDeep bool            // nesting past maxDepth, met before any dup
	id      json.RawMessage // the top-level "id" value (matched ignoring case)
	idFound bool            // the id key was present
	idExact bool            // false: a non-ASCII top-level key may also match "id"
	env     rawEnvelope     // what the relays read of the message
}

// rawEnvelope is what the relays read of a message, found by the message
// check's walk so that a relayed request is parsed once: the raw values of
// the top-level keys and of the params' keys, matched exactly, as go-sdk
// matches them (its decoder is case-sensitive; the walk refuses two keys
// that differ only in case, so each of these is the only one of its kind).
type rawEnvelope struct {
	jsonrpc, id, method, params []byte // nil: the key is missing
	name, args                  []byte // params' name and arguments
	paramsOther                 bool   // params has a key besides those two
}

// top notes a top-level key's value.
func (e *rawEnvelope) top(key string, value []byte) {
	switch key {
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

// param notes a key of the params object.
func (e *rawEnvelope) param(key string, value []byte) {
	switch key {
	case "name":
		e.name = value
	case "arguments":
		e.args = value
	default:
		e.paramsOther = true
	}
}

// scanValid walks a message already known to be valid JSON (json.Valid)
// once, without a tokenizer: the walk need not check the syntax, so it
// allocates only for the keys it remembers. It finds what scanKeys and the
// id decode of checkMessage would, in the same order; the message check
// runs on every message of the HTTP and stdio faces.
func scanValid(data []byte) validScan {
	s := keyWalker{data: data, res: validScan{idExact: true}}
	s.value(0)
	return s.res
}

// keyWalker walks valid JSON; its only failures are a duplicate key and
// too deep a nesting, after which it stops.
type keyWalker struct {
	data []byte
	pos  int
	keys []string // lowered keys of the objects open, innermost last
	res  validScan
	// inParams is set while the walk is in the value of the message's
	// "params".
	inParams bool
}

func (s *keyWalker) done() bool { return s.res.dup || s.res.tooDeep }

func (s *keyWalker) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\r', '\n':
			s.pos++
		default:
			return
		}
	}
}

// value walks one value at depth (0 for the message itself).
func (s *keyWalker) value(depth int) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return
	}
	switch s.data[s.pos] {
	case '{', '[':
		if depth >= maxDepth {
			s.res.tooDeep = true
			return
		}
		if s.data[s.pos] == '{' {
			s.object(depth)
		} else {
			s.array(depth)
		}
	case '"':
		s.str()
	default: // number, true, false, null
		for s.pos < len(s.data) && !endsLiteral(s.data[s.pos]) {
			s.pos++
		}
	}
}

func endsLiteral(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// str skips a string and returns its raw bytes between the quotes.
func (s *keyWalker) str() []byte {
	s.pos++ // opening quote
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '\\':
			s.pos += 2
			continue
		case '"':
			raw := s.data[start:s.pos]
			s.pos++
			return raw
		}
		s.pos++
	}
	return s.data[start:]
}

func (s *keyWalker) array(depth int) {
	s.pos++ // [
	for !s.done() {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] == ']' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		s.value(depth + 1)
	}
}

func (s *keyWalker) object(depth int) {
	s.pos++ // {
	start := len(s.keys)
	defer func() { s.keys = s.keys[:start] }()
	var set map[string]bool // for objects with many keys
	for !s.done() {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] == '}' {
			s.pos++
			return
		}
		if s.data[s.pos] == ',' {
			s.pos++
			continue
		}
		raw := s.str()
		key, ascii := keyText(raw)
		lower := strings.ToLower(key)
		if s.seen(start, lower, &set) {
			s.res.dup, s.res.dupKey = true, key
			return
		}
		s.skipSpace()
		s.pos++ // :
		s.skipSpace()
		valueStart := s.pos
		params := depth == 0 && key == "params"
		s.inParams = s.inParams || params
		s.value(depth + 1)
		s.inParams = s.inParams && !params
		value := s.data[valueStart:s.pos]
		switch {
		case depth == 0:
			s.noteTopKey(lower, ascii, value)
			s.res.env.top(key, value)
		case depth == 1 && s.inParams:
			s.res.env.param(key, value)
		}
	}
}

// seen reports whether lower is already a key of the object whose keys
// start at start, and remembers it.
func (s *keyWalker) seen(start int, lower string, set *map[string]bool) bool {
	const linear = 16
	if *set == nil && len(s.keys)-start >= linear {
		*set = make(map[string]bool, 2*linear)
		for _, k := range s.keys[start:] {
			(*set)[k] = true
		}
	}
	if *set != nil {
		if (*set)[lower] {
			return true
		}
		(*set)[lower] = true
	} else {
		for _, k := range s.keys[start:] {
			if k == lower {
				return true
			}
		}
	}
	s.keys = append(s.keys, lower)
	return false
}

// noteTopKey records the message's id. encoding/json matches field names
// with its own case folding, which agrees with ToLower for ASCII keys only.
func (s *keyWalker) noteTopKey(lower string, ascii bool, value []byte) {
	if !ascii {
		s.res.idExact = false
		return
	}
	if lower == "id" {
		s.res.id, s.res.idFound = value, true
	}
}

// keyText is a key's decoded text, and whether its raw bytes were plain
// ASCII without escapes (decoding them is then the identity).
func keyText(raw []byte) (string, bool) {
	for _, c := range raw {
		if c == '\\' || c >= 0x80 {
			var k string
			_ = json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k)
			return k, false
		}
	}
	return string(raw), true
}
