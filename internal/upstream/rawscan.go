package upstream

import (
	"bytes"
	"encoding/json"
)

// topFields walks the top-level object of msg, already known to be valid
// JSON, and calls field with each key as encoding/json decodes it and the
// key's value as the raw bytes encoding/json hands a json.RawMessage (no
// surrounding space; the slice is msg's). field returns false to stop the
// walk. It reports false when msg is not an object or the walk stopped.
// The results of both raw paths go through it (resultResponse), where a
// map or struct decode allocated a dozen times per call.
func topFields(msg []byte, field func(key, value []byte) bool) bool {
	w := jsonWalk{data: msg}
	w.space()
	if !w.byte('{') {
		return false
	}
	w.space()
	if w.byte('}') {
		return true
	}
	for {
		w.space()
		key := w.key()
		w.space()
		w.byte(':')
		w.space()
		start := w.pos
		w.skipValue()
		if !field(key, msg[start:w.pos]) {
			return false
		}
		w.space()
		if !w.byte(',') {
			return w.byte('}')
		}
	}
}

// jsonWalk steps through valid JSON without checking it.
type jsonWalk struct {
	data []byte
	pos  int
}

func (w *jsonWalk) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n':
			w.pos++
		default:
			return
		}
	}
}

// byte consumes c if it is next.
func (w *jsonWalk) byte(c byte) bool {
	if w.pos < len(w.data) && w.data[w.pos] == c {
		w.pos++
		return true
	}
	return false
}

// key reads an object key: its bytes when it has no escapes (the usual
// case, no allocation), else the decoded string.
func (w *jsonWalk) key() []byte {
	start := w.pos
	w.skipString()
	raw := w.data[start:w.pos]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return []byte(s)
}

// skipString steps over the string that starts at pos.
func (w *jsonWalk) skipString() {
	w.pos++ // the opening quote
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case '\\':
			w.pos += 2
			continue
		case '"':
			w.pos++
			return
		}
		w.pos++
	}
}

// skipValue steps over the value that starts at pos.
func (w *jsonWalk) skipValue() {
	if w.pos >= len(w.data) {
		return
	}
	switch w.data[w.pos] {
	case '"':
		w.skipString()
	case '{', '[':
		depth := 0
		for w.pos < len(w.data) {
			switch w.data[w.pos] {
			case '"':
				w.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					w.pos++
					return
				}
			}
			w.pos++
		}
	default: // a number or a literal
		for w.pos < len(w.data) && !endsScalar(w.data[w.pos]) {
			w.pos++
		}
	}
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
