package upstream

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// digests hashes json.Marshal's encoding of every listed tool. After
// rawSchemas a tool's schemas are JSON bytes, and encoding/json reflects
// over the tool and scans those bytes again to compact them (a no-op on
// bytes it wrote itself); at 10,000 tools that was half of digests' time
// (docs/guides/performance.md, "Fan-in: weft's own start, the face and
// the digests"). appendTool writes the same bytes directly.
// TestAppendToolIsJSONMarshal and FuzzAppendTool hold it to json.Marshal,
// and TestAppendToolKnowsEveryField fails when go-sdk's Tool gains a field
// it does not write.

// appendTool appends json.Marshal(t) to b, for a tool whose schemas are
// nil or rawSchemas' bytes (json.Marshal's own encoding, so compact and
// HTML-escaped already); ok is false for a schema of any other type,
// which the caller encodes with json.Marshal. Members go in mcp.Tool's
// field order with its omitempty rules; _meta, annotations and icons are
// rare and each is json.Marshal's encoding of the field.
func appendTool(b []byte, t *mcp.Tool) ([]byte, bool) {
	in, ok := rawSchema(t.InputSchema)
	if !ok {
		return b, false
	}
	var out json.RawMessage
	if t.OutputSchema != nil {
		if out, ok = rawSchema(t.OutputSchema); !ok {
			return b, false
		}
	}
	b = append(b, '{')
	if len(t.Meta) > 0 {
		if b, ok = appendMarshalled(b, `"_meta":`, t.Meta); !ok {
			return b, false
		}
	}
	if t.Annotations != nil {
		b = comma(b)
		if b, ok = appendMarshalled(b, `"annotations":`, t.Annotations); !ok {
			return b, false
		}
	}
	if t.Description != "" {
		b = comma(b)
		b = appendJSONString(append(b, `"description":`...), t.Description)
	}
	b = append(append(comma(b), `"inputSchema":`...), in...)
	b = appendJSONString(append(b, `,"name":`...), t.Name)
	if t.OutputSchema != nil {
		b = append(append(b, `,"outputSchema":`...), out...)
	}
	if t.Title != "" {
		b = appendJSONString(append(b, `,"title":`...), t.Title)
	}
	if len(t.Icons) > 0 {
		if b, ok = appendMarshalled(b, `,"icons":`, t.Icons); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// comma separates the next member from the one before, if any.
func comma(b []byte) []byte {
	if b[len(b)-1] == '{' {
		return b
	}
	return append(b, ',')
}

// rawSchema is a schema's encoding as a member of the tool: nil and a nil
// json.RawMessage are null; ok is false for an empty json.RawMessage
// (json.Marshal refuses it) and for any type but those.
func rawSchema(v any) (json.RawMessage, bool) {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("null"), true
	case json.RawMessage:
		if v == nil {
			return json.RawMessage("null"), true
		}
		return v, len(v) > 0
	}
	return nil, false
}

// appendMarshalled appends key and json.Marshal(v): a field's value
// encodes inside a struct as it does alone.
func appendMarshalled(b []byte, key string, v any) ([]byte, bool) {
	m, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(append(b, key...), m...), true
}
