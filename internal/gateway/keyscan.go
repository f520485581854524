package gateway

import (
	"bytes"
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
	env     rawEnvelope     // what the relays read of the message (envelope.go)
}

// scanValid walks a message already known to be valid JSON (json.Valid)
// once, without a tokenizer: the walk need not check the syntax, so it
// allocates only for the keys it remembers. It finds what scanKeys and the
// id decode of checkMessage would, in the same order; the message check
// runs on every message of the HTTP and stdio faces.
//
// The walker, its result and room for the keys of the objects open are
// one allocation (the result points into the message, so it outlives the
// walk): the default client's tools/call has nine keys open at most,
// and nine fill the allocation's size class (640 bytes).
func scanValid(data []byte) *validScan {
	s := &keyWalker{data: data, res: validScan{idExact: true}}
	s.keys = s.keyRoom[:0]
	s.value(0)
	return &s.res
}

// keyWalker walks valid JSON; its only failures are a duplicate key and
// too deep a nesting, after which it stops.
type keyWalker struct {
	data []byte
	pos  int
	keys []objectKey // keys of the objects open, innermost last
	res  validScan
	// inParams is set while the walk is in the value of the message's
	// "params".
	inParams bool
	keyRoom  [9]objectKey // keys' first backing array
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
		key := readKey(raw)
		if s.seen(start, key, &set) {
			s.res.dup, s.res.dupKey = true, keyText(raw)
			return
		}
		s.skipSpace()
		s.pos++ // :
		s.skipSpace()
		valueStart := s.pos
		params := depth == 0 && keyIs(raw, "params")
		s.inParams = s.inParams || params
		s.value(depth + 1)
		s.inParams = s.inParams && !params
		value := s.data[valueStart:s.pos]
		switch {
		case depth == 0:
			s.noteTopKey(key, value)
			s.res.env.top(raw, value)
		case depth == 1 && s.inParams:
			s.res.env.param(raw, value)
		}
	}
}

// seen reports whether key is already a key of the object whose keys
// start at start, ignoring case, and remembers it.
func (s *keyWalker) seen(start int, key objectKey, set *map[string]bool) bool {
	const linear = 16
	if *set == nil && len(s.keys)-start >= linear {
		*set = make(map[string]bool, 2*linear)
		for _, k := range s.keys[start:] {
			(*set)[k.lowered()] = true
		}
	}
	if *set != nil {
		lower := key.lowered()
		if (*set)[lower] {
			return true
		}
		(*set)[lower] = true
	} else {
		for _, k := range s.keys[start:] {
			if k.sameAs(key) {
				return true
			}
		}
	}
	s.keys = append(s.keys, key)
	return false
}

// noteTopKey records the message's id. encoding/json matches field names
// with its own case folding, which agrees with ToLower for ASCII keys only.
func (s *keyWalker) noteTopKey(key objectKey, value []byte) {
	if !key.plain {
		s.res.idExact = false
		return
	}
	if bytes.EqualFold(key.raw, []byte("id")) {
		s.res.id, s.res.idFound = value, true
	}
}

// objectKey is a key the walk met. A plain key (ASCII, no escapes) is
// kept as its bytes in the message, which the walk compares ignoring
// ASCII case, as lowering them would (most keys: no allocation); any other
// is kept decoded and lowered.
type objectKey struct {
	raw   []byte // a plain key's bytes, or any other's lowered text
	plain bool
}

// readKey is the key whose bytes between the quotes are raw.
func readKey(raw []byte) objectKey {
	if plainKey(raw) {
		return objectKey{raw: raw, plain: true}
	}
	return objectKey{raw: []byte(strings.ToLower(keyText(raw)))}
}

// plainKey reports whether a key's raw bytes are plain ASCII without
// escapes: decoding them is then the identity.
func plainKey(raw []byte) bool {
	for _, c := range raw {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// keyText is a key's decoded text.
func keyText(raw []byte) string {
	if plainKey(raw) {
		return string(raw)
	}
	var k string
	_ = json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &k)
	return k
}

func (k objectKey) lowered() string {
	if k.plain {
		return strings.ToLower(string(k.raw))
	}
	return string(k.raw)
}

// sameAs reports whether the keys are equal once lowered. For two plain
// keys that is bytes.EqualFold: on ASCII it folds ASCII case only.
func (k objectKey) sameAs(o objectKey) bool {
	if k.plain && o.plain {
		return bytes.EqualFold(k.raw, o.raw)
	}
	return k.lowered() == o.lowered()
}
