package upstream

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A listed tool's schema is kept as JSON bytes, and its digests and pins
// are computed over those bytes. Through go-sdk's client they are
// json.Marshal of the value go-sdk's decoder made of the wire JSON (maps
// with sorted keys, numbers through float64, encoding/json's escapes),
// and pins saved by earlier versions hold digests of exactly those bytes.
// canonical writes the same bytes straight from the wire JSON, without
// the decoded value in between, for the raw list (rawlist.go). Where the
// two decoders weft's bytes depend on (go-sdk's, segmentio's, and
// encoding/json) might not agree, it declines rather than guesses: a
// duplicate key, invalid UTF-8, a lone surrogate escape, a number out of
// float64's range, nesting deeper than MaxSchemaDepth. The caller then
// lists through go-sdk. FuzzCanonical holds it to both decoders.

// canonical appends to dst the bytes json.Marshal writes for the value
// json.Unmarshal makes of raw (one JSON value, space around it allowed);
// ok is false for invalid JSON and for anything it declines.
func canonical(dst, raw []byte) ([]byte, bool) {
	p := canonParser{jsonWalk: jsonWalk{data: raw}}
	p.space()
	dst, ok := p.value(dst)
	p.space()
	return dst, ok && p.pos == len(raw)
}

// canonParser reads one JSON document strictly, writing its canonical
// form. Unlike jsonWalk's own steps, its steps check what they read.
type canonParser struct {
	jsonWalk
	depth   int
	scratch []byte // an object's member values while its keys are sorted
	discard []byte // what skip reads
}

func (p *canonParser) value(dst []byte) ([]byte, bool) {
	if p.pos >= len(p.data) {
		return dst, false
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(dst)
	case c == '[':
		return p.array(dst)
	case c == '"':
		return p.stringValue(dst)
	case c == 't':
		return p.literal(dst, "true")
	case c == 'f':
		return p.literal(dst, "false")
	case c == 'n':
		return p.literal(dst, "null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	}
	return dst, false
}

func (p *canonParser) literal(dst []byte, word string) ([]byte, bool) {
	if !strings.HasPrefix(string(p.data[p.pos:]), word) {
		return dst, false
	}
	p.pos += len(word)
	return append(dst, word...), true
}

// enter counts one more level of nesting, declining past MaxSchemaDepth.
func (p *canonParser) enter() bool {
	p.depth++
	p.pos++
	return p.depth <= MaxSchemaDepth
}

func (p *canonParser) array(dst []byte) ([]byte, bool) {
	if !p.enter() {
		return dst, false
	}
	dst = append(dst, '[')
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return append(dst, ']'), true
	}
	for {
		p.space()
		var ok bool
		if dst, ok = p.value(dst); !ok {
			return dst, false
		}
		p.space()
		if p.pos >= len(p.data) {
			return dst, false
		}
		c := p.data[p.pos]
		p.pos++
		switch c {
		case ',':
			dst = append(dst, ',')
		case ']':
			p.depth--
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// member is one of an object's members: its key, and its value's
// canonical bytes in the parser's scratch.
type member struct {
	key        string
	start, end int
}

// object writes the members in the order of their keys' bytes (as
// encoding/json writes a map), each key as encoding/json writes it.
func (p *canonParser) object(dst []byte) ([]byte, bool) {
	if !p.enter() {
		return dst, false
	}
	// The values are written after dst's end first, then moved into
	// place in the keys' order.
	mark := len(dst)
	var buf [16]member
	members := buf[:0]
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return append(dst, '{', '}'), true
	}
	for {
		p.space()
		key, ok := p.str()
		if !ok {
			return dst, false
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return dst, false
		}
		p.pos++
		p.space()
		start := len(dst)
		if dst, ok = p.value(dst); !ok {
			return dst, false
		}
		members = append(members, member{key: key, start: start - mark, end: len(dst) - mark})
		p.space()
		if p.pos >= len(p.data) {
			return dst, false
		}
		c := p.data[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			return dst, false
		}
	}
	p.depth--
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(members); i++ {
		if members[i].key == members[i-1].key {
			return dst, false // which one a decoder keeps is its own choice
		}
	}
	p.scratch = append(p.scratch[:0], dst[mark:]...)
	dst = append(dst[:mark], '{')
	for i, m := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, m.key)
		dst = append(dst, ':')
		dst = append(dst, p.scratch[m.start:m.end]...)
	}
	return append(dst, '}'), true
}

// stringValue writes a string as encoding/json does; a string with no
// escapes and nothing encoding/json escapes is its own canonical form.
func (p *canonParser) stringValue(dst []byte) ([]byte, bool) {
	start := p.pos
	if end, ok := p.plainString(); ok {
		p.pos = end
		return append(dst, p.data[start:end]...), true
	}
	s, ok := p.str()
	if !ok {
		return dst, false
	}
	return appendJSONString(dst, s), true
}

// plainString finds the end of the string at pos when it is valid UTF-8
// with no escapes and no character encoding/json escapes (<, >, &,
// U+2028, U+2029); ok is false otherwise.
func (p *canonParser) plainString() (end int, ok bool) {
	for i := p.pos + 1; i < len(p.data); {
		c := p.data[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				return i + 1, true
			case c < 0x20, c == '\\', c == '<', c == '>', c == '&':
				return 0, false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p.data[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return 0, false
		}
		i += size
	}
	return 0, false
}

// str reads the string at pos, decoded. It declines invalid UTF-8 and
// lone surrogate escapes, which decoders may replace differently.
func (p *canonParser) str() (string, bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", false
	}
	p.pos++
	var b []byte
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			b = append(b, p.data[start:p.pos]...)
			p.pos++
			return string(b), true
		case c < 0x20:
			return "", false
		case c == '\\':
			b = append(b, p.data[start:p.pos]...)
			var ok bool
			if b, ok = p.escape(b); !ok {
				return "", false
			}
			start = p.pos
		case c < utf8.RuneSelf:
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			p.pos += size
		}
	}
	return "", false
}

// escape decodes the escape at pos into b.
func (p *canonParser) escape(b []byte) ([]byte, bool) {
	if p.pos+1 >= len(p.data) {
		return b, false
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return append(b, c), true
	case 'b':
		return append(b, '\b'), true
	case 'f':
		return append(b, '\f'), true
	case 'n':
		return append(b, '\n'), true
	case 'r':
		return append(b, '\r'), true
	case 't':
		return append(b, '\t'), true
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return b, false
		}
		if utf16.IsSurrogate(r) {
			if !strings.HasPrefix(string(p.data[p.pos:]), `\u`) {
				return b, false
			}
			p.pos += 2
			low, ok := p.hex4()
			if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
				return b, false
			}
		}
		return utf8.AppendRune(b, r), true
	}
	return b, false
}

func (p *canonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 16)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

// number writes a number as float64 prints in encoding/json. A short
// integer (it fits a float64 exactly, and prints without an exponent) is
// its own canonical form.
func (p *canonParser) number(dst []byte) ([]byte, bool) {
	start := p.pos
	integer, ok := p.numberGrammar()
	if !ok {
		return dst, false
	}
	text := p.data[start:p.pos]
	if integer && len(text) <= 15 {
		return append(dst, text...), true
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		return dst, false
	}
	return appendJSONFloat(dst, f)
}

// numberGrammar steps over a JSON number; integer reports one with no
// fraction and no exponent.
func (p *canonParser) numberGrammar() (integer, ok bool) {
	p.byte('-')
	switch {
	case p.byte('0'):
	case p.digits() == 0:
		return false, false
	}
	integer = true
	if p.byte('.') {
		integer = false
		if p.digits() == 0 {
			return false, false
		}
	}
	if p.byte('e') || p.byte('E') {
		integer = false
		if !p.byte('+') {
			p.byte('-')
		}
		if p.digits() == 0 {
			return false, false
		}
	}
	return integer, true
}

func (p *canonParser) digits() int {
	n := 0
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}
