package upstream

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// rawJSON marshals v once; nil and values that cannot be marshalled are
// left as they are.
func rawJSON(v any) any {
	switch v.(type) {
	case nil, json.RawMessage:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return json.RawMessage(b)
}
