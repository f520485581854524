package upstream

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A schema go-sdk's client decoded is nested map[string]any, []any,
// string, float64, bool and nil. encoding/json encodes those through
// reflection and sorts each map's keys by way of a slice of reflected
// values; marshalDecoded writes the same bytes directly, in about half
// the time, which is most of what keeping 10,000 listed schemas as JSON
// costs (docs/guides/performance.md, "Fan-in: one encoding per listed
// tool"). The rules below are encoding/json's (encode.go: floatEncoder,
// appendString, mapEncoder); TestMarshalDecodedIsJSONMarshal and its fuzz
// test hold the two to the same bytes.

// marshalDecoded is json.Marshal(v) for a decoded JSON value; ok is false
// for a value of any other type, or one json.Marshal refuses.
func marshalDecoded(v any) (b []byte, ok bool) {
	return appendDecoded(make([]byte, 0, 256), v)
}

func appendDecoded(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, v), true
	case string:
		return appendJSONString(b, v), true
	case float64:
		return appendJSONFloat(b, v)
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendDecoded(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		return appendDecodedMap(b, v)
	}
	return b, false
}

// appendDecodedMap writes m's members in the order of their keys' bytes.
func appendDecodedMap(b []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendDecoded(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONFloat is encoding/json's float64 form: as ES6 prints numbers.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string form with HTML escaping (as
// json.Marshal writes): <, > and & escaped, invalid UTF-8 replaced, and
// U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// marshalSchema is json.Marshal(v), the fast way when v is decoded JSON.
func marshalSchema(v any) ([]byte, error) {
	if b, ok := marshalDecoded(v); ok {
		return b, nil
	}
	return json.Marshal(v)
}
