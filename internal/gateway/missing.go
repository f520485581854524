package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// explainMissingTools answers a call of a tool the face does not list
// because its server is disconnected or still connecting with the server's
// name and state. The SDK would only say "unknown tool", which
// sends a user looking for a typo instead of at the server.
func (g *Gateway) explainMissingTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		if _, listed := g.hub.Catalog().Tool(call.Params.Name); listed {
			return next(ctx, method, req)
		}
		if err := g.hub.Unavailable(call.Params.Name); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q: %v", call.Params.Name, err)}
		}
		return next(ctx, method, req)
	}
}
