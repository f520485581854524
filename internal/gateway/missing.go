package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
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
		if why := g.instanceUnavailable(call.Params.Name); why != nil {
			return toolError(unavailableTool(call.Params.Name, why))
		}
		return next(ctx, method, req)
	}
}

// instanceUnavailable is the state of the server of an agent's view that
// would serve tool name but has not listed it, naming the server as the
// agent knows it. The hub cannot tell by the name alone when the server is
// the agent's separate instance (SERVER@AGENT): naming rewrites the '@' of
// its namespace. It returns nil when there is nothing to explain.
func (g *Gateway) instanceUnavailable(name string) error {
	return InstanceUnavailable(g.hub, g.View(), name)
}

// InstanceUnavailable is the state of the server of view v that would
// serve tool name but has not listed it, named as the view's agent knows
// it, or nil: the face and runs as an agent (plans, weft's own agent)
// answer a call to a tool of a down server with it.
func InstanceUnavailable(h *hub.Hub, v *agentview.View, name string) error {
	server, seen, ok := v.Pending(h.Catalog(), name)
	if !ok {
		return nil
	}
	why := h.UnavailableServer(server)
	if why == nil || server == seen || errors.Is(why, oauth.ErrNeedsLogin) {
		return why // a login is run for the instance, by its own name
	}
	return &renamedServer{err: why, hubName: server, seen: seen}
}

// renamedServer is the error of a server as an agent knows it: the
// instance's hub name (SERVER@AGENT), in the state and in the reason the
// upstream gave, reads as the name the agent knows.
type renamedServer struct {
	err           error
	hubName, seen string
}

func (e *renamedServer) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.hubName, e.seen)
}

func (e *renamedServer) Unwrap() error { return e.err }

// unavailableTool is the error of a call to a tool whose server is not
// active: unknown to the client, with the server's state as the reason.
func unavailableTool(name string, why error) error {
	return fmt.Errorf("%w %q: %w", hub.ErrUnknownTool, name, why)
}
