package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

const (
	searchToolName = "weft__search_tools"
	callToolName   = "weft__call_tool"
	defaultLimit   = 20
)

// searchIn is weft__search_tools' input.
type searchIn struct {
	Query string `json:"query,omitempty" jsonschema:"words to match against tool names and descriptions; empty lists all"`
	Limit int    `json:"limit,omitempty" jsonschema:"most results to return (default 20)"`
}

// SearchResult is weft__search_tools' result.
type SearchResult struct {
	Tools []FoundTool `json:"tools"`
}

// FoundTool is one search hit, with everything needed to call it.
type FoundTool struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description,omitempty"`
	InputSchema any    `json:"inputSchema"`
	Listed      bool   `json:"listed"`
}

// callIn is weft__call_tool's input.
type callIn struct {
	Name      string         `json:"name" jsonschema:"exact tool name"`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"the tool's arguments"`
}

// addBuiltins registers the meta tools that keep tools past the cap
// reachable.
func (g *Gateway) addBuiltins() {
	mcp.AddTool(g.server, &mcp.Tool{
		Name:        searchToolName,
		Description: "Search every tool weft can reach, including those not listed because of the tool cap. Returns matching tools with their input schemas; call one with weft__call_tool.",
		InputSchema: inputSchema[searchIn](func(p map[string]*jsonschema.Schema) { p["limit"].Minimum = atLeast(1) }),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, g.searchTools)
	mcp.AddTool(g.server, &mcp.Tool{
		Name:        callToolName,
		Description: "Call any tool weft can reach by its exact name (as returned by weft__search_tools), with its arguments.",
		InputSchema: inputSchema[callIn](nil),
	}, relayedFor(g, g.callTool))
	g.addManageTool()
}

func (g *Gateway) searchTools(_ context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, SearchResult, error) {
	if in.Limit <= 0 {
		in.Limit = defaultLimit
	}
	hits := g.snapshot().Search(in.Query, in.Limit)
	out := SearchResult{Tools: make([]FoundTool, 0, len(hits))}
	for _, t := range hits {
		out.Tools = append(out.Tools, FoundTool{Name: t.Name, Server: t.Server, Description: t.Def.Description, InputSchema: t.Def.InputSchema, Listed: t.Listed})
	}
	return nil, out, nil
}

func (g *Gateway) callTool(ctx context.Context, req *mcp.CallToolRequest, in callIn) (*mcp.CallToolResult, any, error) {
	if in.Name == searchToolName || in.Name == callToolName || in.Name == ManageToolName {
		return errorResult(fmt.Errorf("%s cannot call weft's own meta tools", callToolName)), nil, nil
	}
	var args json.RawMessage
	if in.Arguments != nil {
		b, err := json.Marshal(in.Arguments)
		if err != nil {
			return errorResult(fmt.Errorf("invalid arguments: %v", err)), nil, nil
		}
		args = b
	}
	meta, err := g.delegate(req.Params.Meta)
	if err != nil {
		return metaToolError(err), nil, nil
	}
	peer, _ := askerFrom(ctx)
	ctx = upstream.WithInputResponses(ctx, req.Params.InputResponses, upstreamState(req.Params.RequestState))
	res, err := g.callThrough(ctx, peer, in.Name, args, meta)
	if err != nil {
		return metaToolError(err), nil, nil
	}
	return res, nil, nil
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
