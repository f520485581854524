package upstream

import (
	"encoding/json"
	"slices"
)

// The steps of the raw list's reading of a page (rawlist.go) on
// canonParser: strict where the page's bytes decide what weft keeps.

// members walks an object, calling fn with each key and the parser at its
// value, which fn must read. It declines a key written with escapes
// (go-sdk's decoder matches keys by their bytes) and a key given twice.
func (p *canonParser) members(fn func(key string, p *canonParser) bool) bool {
	if !p.byte('{') {
		return false
	}
	p.space()
	if p.byte('}') {
		return true
	}
	var buf [12]string
	seen := buf[:0]
	for {
		p.space()
		start := p.pos
		key, ok := p.str()
		if !ok || len(key) != p.pos-start-2 || slices.Contains(seen, key) {
			return false
		}
		seen = append(seen, key)
		p.space()
		if !p.byte(':') {
			return false
		}
		p.space()
		if !fn(key, p) {
			return false
		}
		p.space()
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// elements walks an array, calling fn with the parser at each element,
// which fn must read.
func (p *canonParser) elements(fn func(p *canonParser) bool) bool {
	if !p.byte('[') {
		return false
	}
	p.space()
	if p.byte(']') {
		return true
	}
	for {
		p.space()
		if !fn(p) {
			return false
		}
		p.space()
		if p.byte(']') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// null reads a null, if that is what is next.
func (p *canonParser) null() bool {
	if p.pos+4 <= len(p.data) && string(p.data[p.pos:p.pos+4]) == "null" {
		p.pos += 4
		return true
	}
	return false
}

// optString reads a string, or null as "".
func (p *canonParser) optString() (string, bool) {
	if p.null() {
		return "", true
	}
	return p.str()
}

// optShortInt reads null or an integer written plainly that an int holds
// whatever its size (at most 15 digits), as go-sdk's decoder reads it.
func (p *canonParser) optShortInt() bool {
	if p.null() {
		return true
	}
	start := p.pos
	integer, ok := p.numberGrammar()
	return ok && integer && p.pos-start <= 15
}

// optStringInto reads a string into dst; null leaves dst as it is (as a
// decoder leaves a string field).
func (p *canonParser) optStringInto(dst *string) bool {
	if p.null() {
		return true
	}
	s, ok := p.str()
	*dst = s
	return ok
}

// skip reads any value, strictly.
func (p *canonParser) skip() bool {
	var ok bool
	p.discard, ok = p.value(p.discard[:0])
	return ok
}

// optObjectSkipped reads an object or null, strictly.
func (p *canonParser) optObjectSkipped() bool {
	if p.null() {
		return true
	}
	return p.pos < len(p.data) && p.data[p.pos] == '{' && p.skip()
}

// skipRaw steps over the value at pos without checking it (canonical
// checks what it keeps); false if it runs off the end.
func (p *canonParser) skipRaw() bool {
	depth := 0
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; c {
		case '"':
			if !p.closedString() {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of a number or literal
				return true
			}
			if depth--; depth == 0 {
				p.pos++
				return true
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return true
			}
		}
		p.pos++
	}
	return depth == 0 && p.pos == len(p.data)
}

// closedString steps over the string at pos, false if it is not closed
// (jsonWalk.skipString trusts the JSON to be valid).
func (p *canonParser) closedString() bool {
	for i := p.pos + 1; i < len(p.data); i++ {
		switch p.data[i] {
		case '\\':
			i++
		case '"':
			p.pos = i + 1
			return true
		}
	}
	return false
}

// decodeInto reads an object (or null, which leaves dst as it is) and
// decodes it into dst with encoding/json. It declines what canonical
// declines (where decoders may differ) and, when names is set, any key
// not in it: encoding/json matches keys ignoring case, go-sdk's decoder
// exactly.
func (p *canonParser) decodeInto(dst any, names map[string]bool) bool {
	return p.decodeChecked('{', dst, func(q *canonParser) bool { return names == nil || q.onlyKeys(names) })
}

// decodeListInto is decodeInto for a list of objects (or null), each with
// keys from names only.
func (p *canonParser) decodeListInto(dst any, names map[string]bool) bool {
	return p.decodeChecked('[', dst, func(q *canonParser) bool {
		return q.elements(func(q *canonParser) bool { return q.onlyKeys(names) })
	})
}

// decodeChecked reads null (leaving dst as it is), or a value that opens
// with open, passes canonical's checks and check, and decodes into dst.
func (p *canonParser) decodeChecked(open byte, dst any, check func(q *canonParser) bool) bool {
	if p.null() {
		return true
	}
	start := p.pos
	if p.pos >= len(p.data) || p.data[p.pos] != open || !p.skip() {
		return false
	}
	raw := p.data[start:p.pos]
	return check(&canonParser{jsonWalk: jsonWalk{data: raw}}) && json.Unmarshal(raw, dst) == nil
}

// onlyKeys reads an object whose keys are all in names.
func (p *canonParser) onlyKeys(names map[string]bool) bool {
	return p.members(func(key string, q *canonParser) bool { return names[key] && q.skip() })
}
