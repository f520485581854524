package upstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/tooldigest"
)

// Digest identifies a tool definition. Both are computed once, when the
// upstream lists the tool, and compared wherever a change matters.
type Digest struct {
	// Pin is the tool's pin (tooldigest.Pin): what tool pinning compares.
	Pin string
	// Def covers the whole definition as listed: what the face compares to
	// decide whether a client must be told of a change.
	Def [32]byte
	// Refused, when set, says why the tool is not served (an invalid
	// schema); its server's other tools are.
	Refused string
}

// digests computes each tool's Digest.
func digests(tools []*mcp.Tool) map[*mcp.Tool]Digest {
	out := make(map[*mcp.Tool]Digest, len(tools))
	verdicts := map[string]string{}
	var buf []byte // one buffer for every tool's encoding: nothing keeps it
	for _, t := range tools {
		d := Digest{Refused: checkSchemaOnce(verdicts, t)}
		// One encoding of the tool gives both digests (the schemas are
		// most of its bytes, and most of the cost of encoding it).
		b, ok := appendTool(buf[:0], t)
		var err error
		if ok {
			buf = b
		} else {
			b, err = json.Marshal(t)
		}
		if err == nil {
			d.Def = sha256.Sum256(b)
			d.Pin, _ = tooldigest.PinOfDefinition(b)
		} else if d.Refused == "" {
			// Without its encoding no digest tells one definition of it
			// from the next: served, it could change unnoticed.
			d.Refused = "its definition cannot be encoded as JSON (" + err.Error() + ")"
		}
		if d.Pin == "" {
			d.Pin = tooldigest.Pin(t)
		}
		out[t] = d
	}
	return out
}

// checkSchemaOnce is checkSchema remembered by the schemas' bytes: the
// tools of one server often share their schemas (the same shape of
// arguments, or none), and checking one means decoding and resolving it.
func checkSchemaOnce(verdicts map[string]string, t *mcp.Tool) string {
	in, ok1 := t.InputSchema.(json.RawMessage)
	out, ok2 := t.OutputSchema.(json.RawMessage)
	if !ok1 || (!ok2 && t.OutputSchema != nil) {
		return checkSchema(t)
	}
	hasOut := "1" // a typed nil output schema is not the absent one
	if t.OutputSchema == nil {
		hasOut = "0"
	}
	key := hasOut + string(out) + "\x00" + string(in)
	v, seen := verdicts[key]
	if !seen {
		v = checkSchema(t)
		verdicts[key] = v
	}
	return v
}

// rawSchemas keeps each tool's schemas as JSON bytes. The gateway face
// marshals every listed tool on every tools/list; encoding/json copies raw
// bytes several times faster than it walks the decoded maps (it sorts each
// map's keys every time), which `go run ./bench --scenario fanin` shows at
// 10,000 tools. The bytes are what json.Marshal of the map produces, so
// hashes of tool definitions do not change.
func rawSchemas(tools []*mcp.Tool) {
	for _, t := range tools {
		t.InputSchema = rawJSON(t.InputSchema)
		t.OutputSchema = rawJSON(t.OutputSchema)
	}
}

// rawJSON marshals v once (marshalSchema: json.Marshal's bytes); nil and
// values that cannot be marshalled are left as they are, and a parked
// schema is unparked.
func rawJSON(v any) any {
	switch v := v.(type) {
	case nil, json.RawMessage:
		return v
	case parkedSchema:
		return v.raw
	}
	b, err := marshalSchema(v)
	if err != nil {
		return v
	}
	return json.RawMessage(b)
}

// go-sdk's client checks every tool of a tools/list result for
// x-mcp-header annotations (filterValidTools) by encoding its input schema
// and decoding it again through a fresh 32 KiB buffer: for 10 upstreams of
// 1,000 tools, a third of weft's CPU from start to all listed
// (docs/guides/performance.md, "Fan-in and listing without AddTool").
// Only a schema that mentions x-mcp-header can fail that check; every
// other schema passes it parked, as the JSON rawSchemas would make of it
// anyway, in a value that refuses to encode: go-sdk then finds no
// annotations without decoding anything.

// parkedSchema is a listed tool's input schema, as JSON, on its way past
// go-sdk's check; rawSchemas unparks it.
type parkedSchema struct{ raw json.RawMessage }

var errParked = errors.New("upstream: a parked schema is not encoded")

// MarshalJSON refuses: see parkedSchema.
func (parkedSchema) MarshalJSON() ([]byte, error) { return nil, errParked }

// headerKey is the annotation's key as go-sdk's decoder matches it
// (exactly: it does not fold case). rawJSON's bytes are json.Marshal's,
// so the key is never escaped in them.
var headerKey = []byte(`"x-mcp-header"`)

// parkSchemas is the client's sending middleware that parks the input
// schemas of a tools/list result go-sdk need not check.
func parkSchemas(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && lr != nil {
			for _, t := range lr.Tools {
				if t == nil {
					continue
				}
				raw, ok := rawJSON(t.InputSchema).(json.RawMessage)
				if ok && !bytes.Contains(raw, headerKey) {
					t.InputSchema = parkedSchema{raw: raw}
				}
			}
		}
		return res, err
	}
}
