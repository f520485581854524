package policy

import (
	"encoding/json"
	"slices"
)

// encodePins is json.MarshalIndent(d, "", "  ") without reflection: a save
// encodes the whole file, and a start that pins thousands of tools saves
// it once per batch of arriving servers. TestEncodePinsIsMarshalIndent
// holds the two to the same bytes.
func encodePins(d pinsFile) []byte {
	b := make([]byte, 0, 256+96*countPins(d))
	b = append(b, "{\n  \"pins\": "...)
	b = appendNested(b, d.Pins)
	for _, f := range []struct {
		key string
		m   map[string]map[string]string
	}{{"pending", d.Pending}, {"claims", d.Claims}} {
		if len(f.m) > 0 {
			b = append(b, ",\n  "...)
			b = appendString(b, f.key)
			b = append(b, ": "...)
			b = appendNested(b, f.m)
		}
	}
	if len(d.Owners) > 0 {
		b = append(b, ",\n  \"owners\": "...)
		b = appendFlat(b, d.Owners, "  ")
	}
	return append(b, "\n}"...)
}

func countPins(d pinsFile) int {
	n := 0
	for _, in := range d.Pins {
		n += len(in)
	}
	return n
}

// appendNested encodes m (server → name → value) at the second level.
func appendNested(b []byte, m map[string]map[string]string) []byte {
	return appendObject(b, m, "  ", func(b []byte, in map[string]string) []byte {
		return appendFlat(b, in, "    ")
	})
}

// appendFlat encodes m (name → value) as an object whose closing brace is
// indented by indent.
func appendFlat(b []byte, m map[string]string, indent string) []byte {
	return appendObject(b, m, indent, appendString)
}

// appendObject encodes m with sorted keys, its members one indent deeper
// than its closing brace, each value by value.
func appendObject[V any](b []byte, m map[string]V, indent string, value func([]byte, V) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	if len(m) == 0 {
		return append(b, "{}"...)
	}
	b = append(b, '{')
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
		b = append(b, indent...)
		b = append(b, "  "...)
		b = appendString(b, k)
		b = append(b, ": "...)
		b = value(b, m[k])
	}
	b = append(b, '\n')
	b = append(b, indent...)
	return append(b, '}')
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendString quotes s as encoding/json does: printable ASCII other than
// the quote, the backslash and <, >, & as it is; anything else through
// encoding/json itself (rare in server and tool names, never in hashes).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
