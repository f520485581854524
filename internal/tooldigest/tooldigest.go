// Package tooldigest computes the pin of a tool definition: the digest that
// tool pinning records and compares. It is a leaf so that the upstream
// connection (which computes each digest once, when a tool is listed) and
// pinning (which compares them) share one formula without depending on
// each other.
package tooldigest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Pin is a SHA-256 of a tool's name, description, input schema and
// annotations, hex-encoded. Changing it changes every pin on disk.
func Pin(t *mcp.Tool) string {
	b, _ := json.Marshal(struct {
		Name        string               `json:"name"`
		Description string               `json:"description"`
		InputSchema any                  `json:"inputSchema"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
	}{t.Name, t.Description, t.InputSchema, t.Annotations})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// PinOfDefinition is Pin computed from def, the json.Marshal encoding of a
// tool, without encoding the tool again: the upstream connection encodes
// each listed tool once for its whole-definition digest, and the pin's four
// fields are in those bytes, encoded as Pin encodes them (the same Go values
// through the same encoder). ok is false when def is not such an encoding;
// then the caller uses Pin.
func PinOfDefinition(def []byte) (pin string, ok bool) {
	f, ok := topLevelFields(def)
	if !ok || f.name == nil || f.inputSchema == nil {
		return "", false
	}
	// Pin's struct has no omitempty: an absent description is the empty
	// string, absent annotations (a nil pointer) null.
	if f.description == nil {
		f.description = []byte(`""`)
	}
	if f.annotations == nil {
		f.annotations = []byte(`null`)
	}
	h := sha256.New()
	for _, part := range [...][]byte{
		[]byte(`{"name":`), f.name,
		[]byte(`,"description":`), f.description,
		[]byte(`,"inputSchema":`), f.inputSchema,
		[]byte(`,"annotations":`), f.annotations,
		[]byte(`}`),
	} {
		h.Write(part)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])), true
}

// pinFields are the encoded values of the members of a tool's encoding
// that its pin covers; nil when absent.
type pinFields struct{ name, description, inputSchema, annotations []byte }

// topLevelFields finds the pin's members in a compact JSON object as
// json.Marshal writes it. Keys are compared as written (a tool's keys need
// no escapes); ok is false for bytes that are not such an object.
func topLevelFields(b []byte) (pinFields, bool) {
	var f pinFields
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return f, false
	}
	i := 1
	for i < len(b)-1 {
		if b[i] != '"' {
			return f, false
		}
		end := skipValue(b, i)
		if end < 0 || end >= len(b) || b[end] != ':' {
			return f, false
		}
		key := b[i+1 : end-1]
		start := end + 1
		end = skipValue(b, start)
		if end < 0 || end >= len(b) {
			return f, false
		}
		switch string(key) {
		case "name":
			f.name = b[start:end]
		case "description":
			f.description = b[start:end]
		case "inputSchema":
			f.inputSchema = b[start:end]
		case "annotations":
			f.annotations = b[start:end]
		}
		switch b[end] {
		case ',':
			i = end + 1
		case '}':
			return f, end == len(b)-1
		default:
			return f, false
		}
	}
	return f, len(b) == 2
}

// skipValue returns the index just past the JSON value starting at b[i] in
// compact JSON, or -1 if the value is cut off.
func skipValue(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // a number, true, false or null ended
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ':':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}
