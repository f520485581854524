package upstream

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressTokenKey is the _meta key of a request's progress token
// (go-sdk's GetProgressToken reads it).
const progressTokenKey = "progressToken"

// rawCallParams is a raw tools/call's params, encoded once: what
// json.Marshal of mcp.CallToolParams writes (_meta with its keys sorted,
// name, arguments, in that order), without marshalling a struct and a map
// through reflection and without copying the client's _meta first.
// skip names the _meta keys requestMeta drops and extra the keys it adds
// or replaces (a log level, weft's progress token); the caller's map is
// only read. arguments are written as they came ("{}" when none); the
// request's encoding (go-sdk's on the stdio path, postBody's as it on the
// posted one) checks and compacts the whole params again, so nothing
// invalid reaches the upstream.
func rawCallParams(name string, args json.RawMessage, meta mcp.Meta, extra map[string]any) (json.RawMessage, error) {
	out := make([]byte, 0, 48+len(name)+len(args)+32*(len(meta)+len(extra)))
	out = append(out, '{')
	var room [8]string
	keys := metaKeys(room[:0], meta, extra)
	if len(keys) > 0 {
		out = append(out, `"_meta":{`...)
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			v, ok := extra[k]
			if !ok {
				v = meta[k]
			}
			var err error
			out = appendJSONString(out, k)
			out = append(out, ':')
			if out, err = appendJSONValue(out, v); err != nil {
				return nil, err
			}
		}
		out = append(out, "},"...)
	}
	out = append(out, `"name":`...)
	out = appendJSONString(out, name)
	out = append(out, `,"arguments":`...)
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	out = append(out, args...)
	return append(out, '}'), nil
}

// metaKeys is the keys of the _meta sent: meta's, less the client's
// identity keys requestMeta drops, and extra's; sorted, as encoding/json
// writes a map's keys; appended to keys.
func metaKeys(keys []string, meta mcp.Meta, extra map[string]any) []string {
	for k := range meta {
		if _, dup := extra[k]; !dup && !clientIdentityKey(k) {
			keys = append(keys, k)
		}
	}
	for k := range extra {
		keys = append(keys, k)
	}
	if len(keys) > 1 {
		slices.Sort(keys)
	}
	return keys
}

// clientIdentityKey reports the _meta keys of a client's own revision that
// are not forwarded (requestMeta).
func clientIdentityKey(k string) bool {
	return k == mcp.MetaKeyProtocolVersion || k == mcp.MetaKeyClientInfo || k == mcp.MetaKeyClientCapabilities
}

// appendJSONValue appends v as encoding/json writes it, without reflection
// for the common kinds of a _meta value.
func appendJSONValue(out []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(out, "null"...), nil
	case int:
		return strconv.AppendInt(out, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(out, v, 10), nil
	case string:
		return appendJSONString(out, v), nil
	case bool:
		return strconv.AppendBool(out, v), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(out, b...), nil
}
