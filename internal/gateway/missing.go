package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
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
		hubName, err := g.ResolveTool(call.Params.Name)
		if err != nil {
			return toolError(err)
		}
		if _, listed := g.hub.Catalog().Tool(hubName); listed {
			return next(ctx, method, req)
		}
		// A server still on its first connection is waited for; the face
		// may not have registered the tool yet, so the call goes straight
		// to the hub.
		_, err = g.hub.AwaitTool(ctx, hubName)
		if err == nil {
			return g.forwardTool(ctx, call)
		}
		if errors.Is(err, hub.ErrConnecting) {
			return toolError(err)
		}
		if why := g.hub.Unavailable(hubName); why != nil {
			// The login is asked of the client in its own revision.
			return g.relayedTool(func(ctx context.Context, call *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				again, err := g.loginThroughClient(ctx, call.Session, call.Params.Name, why)
				if !again {
					return toolError(unavailableTool(call.Params.Name, err))
				}
				meta, err := g.delegate(call.Params.Meta)
				if err != nil {
					return toolError(err)
				}
				peer, _ := askerFrom(ctx) // the face may not list the tool yet
				res, err := g.callThrough(ctx, peer, call.Params.Name, call.Params.Arguments, meta)
				if err != nil {
					return toolError(err)
				}
				return res, nil
			})(ctx, call)
		}
		return next(ctx, method, req)
	}
}

// unavailableTool is the error of a call to a tool whose server is not
// active: unknown to the client, with the server's state as the reason.
func unavailableTool(name string, why error) error {
	return fmt.Errorf("%w %q: %w", hub.ErrUnknownTool, name, why)
}
