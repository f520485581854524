package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxSchemaDepth bounds how deeply a tool's schema may nest. A deeper one
// costs every client that walks it (some give up on the whole list), and
// no real tool needs it. It leaves room for the message around the schema
// within the SDK's limit of 1000 levels for a whole message.
const MaxSchemaDepth = messageDepthLimit - 10

// checkSchema says why a tool cannot be served as listed, or "" when it
// can: its input schema must be a valid JSON Schema of type "object" and,
// like its output schema, nest at most MaxSchemaDepth levels. A refused tool
// is refused alone; the rest of its server's tools are served.
func checkSchema(t *mcp.Tool) string {
	if t.InputSchema == nil {
		return "no input schema"
	}
	if err := validSchema(t.InputSchema, true); err != nil {
		return "invalid input schema: " + err.Error()
	}
	if t.OutputSchema != nil {
		if err := validSchema(t.OutputSchema, false); err != nil {
			return "invalid output schema: " + err.Error()
		}
	}
	return ""
}

// validSchema checks one schema (raw JSON, as rawSchemas leaves it); the
// answer for bytes checked before, by any upstream, is remembered.
func validSchema(v any, object bool) error {
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		raw = b
	}
	return schemaVerdicts.check(keyOf(raw, object), func() error { return checkRawSchema(raw, object) })
}

// checkRawSchema is validSchema's check of raw, made once per distinct
// schema.
func checkRawSchema(raw json.RawMessage, object bool) error {
	if d := depth(raw); d > MaxSchemaDepth {
		return fmt.Errorf("nested more than %d levels deep", MaxSchemaDepth)
	}
	if bytes.Contains(raw, []byte(refusedKey)) {
		var marker map[string]any
		if json.Unmarshal(raw, &marker) == nil && marker[refusedKey] != nil {
			return fmt.Errorf("%v", marker[refusedKey])
		}
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	if object && s.Type != "object" {
		return fmt.Errorf(`type must be "object" (got %q)`, s.Type)
	}
	// Remote references are not fetched: weft relays the schema, it does
	// not validate arguments against it.
	_, err := s.Resolve(&jsonschema.ResolveOptions{Loader: func(*url.URL) (*jsonschema.Schema, error) {
		return &jsonschema.Schema{}, nil
	}})
	return err
}

// depth returns how deeply raw JSON nests objects and arrays, without
// decoding it (decoding a very deep document is what is being avoided).
func depth(raw []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}
