package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

const (
	searchToolName = "weft__search_tools"
	callToolName   = "weft__call_tool"
	defaultLimit   = 20
)

// foundTool is one search hit, with everything needed to call it.
type foundTool struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"inputSchema"`
	Listed      bool   `json:"listed"`
}

// addBuiltins registers the meta tools that keep tools past the cap
// reachable.
func (g *Gateway) addBuiltins() {
	g.server.AddTool(&mcp.Tool{
		Name:        searchToolName,
		Description: "Search every tool weft can reach, including those not listed because of the tool cap. Returns matching tools with their input schemas; call one with weft__call_tool.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{"type": "string", "description": "words to match against tool names and descriptions; empty lists all"},
				"limit": map[string]any{"type": "integer", "description": "most results to return (default 20)", "minimum": 1},
			},
		},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, g.searchTools)
	g.server.AddTool(&mcp.Tool{
		Name:        callToolName,
		Description: "Call any tool weft can reach by its exact name (as returned by weft__search_tools), with its arguments.",
		InputSchema: map[string]any{
			"type":     "object",
			"required": []string{"name"},
			"properties": map[string]any{
				"name":      map[string]any{"type": "string", "description": "exact tool name"},
				"arguments": map[string]any{"type": "object", "description": "the tool's arguments"},
			},
		},
	}, g.relayedTool(g.callTool))
	g.addManageTool()
}

func (g *Gateway) searchTools(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return errorResult(err), nil
	}
	if in.Limit <= 0 {
		in.Limit = defaultLimit
	}
	hits := g.hub.Catalog().Search(in.Query, in.Limit)
	out := struct {
		Tools []foundTool `json:"tools"`
	}{Tools: make([]foundTool, 0, len(hits))}
	for _, t := range hits {
		out.Tools = append(out.Tools, foundTool{Name: t.Name, Server: t.Server, Description: t.Def.Description, InputSchema: t.Def.InputSchema, Listed: t.Listed})
	}
	return jsonResult(out)
}

func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return errorResult(err), nil
	}
	if in.Name == searchToolName || in.Name == callToolName || in.Name == ManageToolName {
		return errorResult(fmt.Errorf("%s cannot call weft's own meta tools", callToolName)), nil
	}
	meta, err := g.delegate(req.Params.Meta)
	if err != nil {
		return errorResult(err), nil
	}
	peer, _ := askerFrom(ctx)
	ctx = upstream.WithInputResponses(ctx, req.Params.InputResponses, upstreamState(req.Params.RequestState))
	res, err := g.hub.CallTool(ctx, peer, in.Name, in.Arguments, meta)
	if err != nil {
		return errorResult(err), nil
	}
	return res, nil
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}
