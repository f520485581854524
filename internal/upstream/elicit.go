package upstream

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicit asks peer to fill in an upstream's form, relayed as the upstream
// wrote it: the SDK's own checks of the requested schema are stricter than
// the spec (they refuse titled multi-select enums), and the client that
// answers is the one to judge the form. Like any client, weft fills in the
// defaults the form declares for fields an accepted answer leaves out.
func elicit(ctx context.Context, peer Peer, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	res, err := peer.Elicit(ctx, params)
	if err != nil || res == nil || res.Action != "accept" || params == nil {
		return res, err
	}
	defaults := formDefaults(params.RequestedSchema)
	if len(defaults) == 0 {
		return res, nil
	}
	filled := *res
	filled.Content = make(map[string]any, len(res.Content)+len(defaults))
	for k, v := range defaults {
		filled.Content[k] = v
	}
	for k, v := range res.Content {
		filled.Content[k] = v
	}
	return &filled, nil
}

// formDefaults returns the default of each top-level property of an
// elicitation form that declares one.
func formDefaults(schema any) map[string]any {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var form struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(b, &form) != nil {
		return nil
	}
	out := map[string]any{}
	for name, p := range form.Properties {
		var v any
		if len(p.Default) > 0 && json.Unmarshal(p.Default, &v) == nil && v != nil {
			out[name] = v
		}
	}
	return out
}
