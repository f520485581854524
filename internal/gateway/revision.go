package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// forwardCall forwards a tool call in the client's revision: a legacy client's
// call is made directly; a 2026-07-28 client's call may be parked while the
// upstream asks for input (inputreq.go; made directly too when the client
// cannot be asked, see sessionPeer.parks), and its answers to an upstream's
// own input-required result travel back with it.
func (g *Gateway) forwardCall(ctx context.Context, req *mcp.CallToolRequest, meta mcp.Meta) (*mcp.CallToolResult, error) {
	peer := g.peerFor(req.Session, callInfo(ctx, req))
	p := req.Params
	if !peer.parks(p.RequestState) {
		// What inRevision does for a call that is not parked, without its closures.
		return g.callForwarded(withAsker(ctx, peer), peer, req, meta)
	}
	return inRevision(ctx, g, peer, p.RequestState, p.InputResponses,
		func(ctx context.Context, peer sessionPeer) (*mcp.CallToolResult, error) {
			return g.callForwarded(ctx, peer, req, meta)
		}, toolAsking)
}

// callForwarded makes a forwarded tool call for peer, the client asked for
// input in ctx (askerFrom).
func (g *Gateway) callForwarded(ctx context.Context, peer sessionPeer, req *mcp.CallToolRequest, meta mcp.Meta) (*mcp.CallToolResult, error) {
	p := req.Params
	ctx = upstream.WithInputResponses(ctx, p.InputResponses, upstreamState(p.RequestState))
	res, err := g.callThrough(ctx, peer, p.Name, p.Arguments, meta)
	if err != nil {
		// A server that needs a login: the client is asked to open the
		// page, in its own revision, and the call is made again.
		again, lerr := g.loginThroughClient(ctx, req.Session, p.Name, err)
		if !again {
			return nil, lerr
		}
		return g.callThrough(ctx, peer, p.Name, p.Arguments, meta)
	}
	return res, nil
}

// relayedTool runs a tool handler that may ask the client for input (an
// upstream's request, or weft's own approval) in the client's revision. The
// handler finds the peer to ask with askerFrom.
func (g *Gateway) relayedTool(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		p := req.Params
		return inRevision(ctx, g, g.peerFor(req.Session, callInfo(ctx, req)), p.RequestState, p.InputResponses,
			func(ctx context.Context, _ sessionPeer) (*mcp.CallToolResult, error) { return h(ctx, req) }, toolAsking)
	}
}

// toolAsking is a tool call's input-required result.
func toolAsking(ask *inputRequest) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: ask.requests(), RequestState: ask.state}
}

// relayedFor is relayedTool for a typed tool handler.
func relayedFor[In, Out any](g *Gateway, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var out Out
		res, err := g.relayedTool(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var res *mcp.CallToolResult
			var err error
			res, out, err = h(ctx, req, in)
			return res, err
		})(ctx, req)
		return res, out, err
	}
}

// inRevision runs h for one client request in the client's revision: for a
// legacy client, or a 2026-07-28 client that cannot be asked for input,
// directly; for any other 2026-07-28 client as a parked call (inputreq.go),
// whose input requests asking turns into the request's input-required
// result. A retry that answers a parked call resumes it.
func inRevision[R any](ctx context.Context, g *Gateway, peer sessionPeer, state string, answers mcp.InputResponseMap,
	h func(context.Context, sessionPeer) (R, error), asking func(*inputRequest) R) (R, error) {
	if !peer.parks(state) {
		return h(withAsker(ctx, peer), peer)
	}
	res, ask, err := relayed(ctx, &g.parking, peer.ss, state, answers, func(ctx context.Context, pc *parkedCall) (R, error) {
		peer.park = pc
		return h(withAsker(ctx, peer), peer)
	})
	if ask != nil {
		return asking(ask), nil
	}
	return res, err
}

type askerKey struct{}

func withAsker(ctx context.Context, p sessionPeer) context.Context {
	return context.WithValue(ctx, askerKey{}, p)
}

// askerFrom returns the peer of the client request a handler serves.
func askerFrom(ctx context.Context) (sessionPeer, bool) {
	p, ok := ctx.Value(askerKey{}).(sessionPeer)
	return p, ok
}

func (g *Gateway) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	p := req.Params
	return inRevision(ctx, g, g.peerFor(req.Session, req), p.RequestState, p.InputResponses,
		func(ctx context.Context, peer sessionPeer) (*mcp.GetPromptResult, error) {
			ctx = upstream.WithInputResponses(ctx, p.InputResponses, upstreamState(p.RequestState))
			return g.promptThrough(ctx, peer, p)
		},
		func(ask *inputRequest) *mcp.GetPromptResult {
			return &mcp.GetPromptResult{InputRequests: ask.requests(), RequestState: ask.state}
		})
}

func (g *Gateway) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	p := req.Params
	return inRevision(ctx, g, g.peerFor(req.Session, req), p.RequestState, p.InputResponses,
		func(ctx context.Context, peer sessionPeer) (*mcp.ReadResourceResult, error) {
			ctx = upstream.WithInputResponses(ctx, p.InputResponses, upstreamState(p.RequestState))
			return g.readThrough(ctx, peer, p)
		},
		func(ask *inputRequest) *mcp.ReadResourceResult {
			return &mcp.ReadResourceResult{InputRequests: ask.requests(), RequestState: ask.state}
		})
}

// upstreamState is the request state to pass to the upstream: none when
// the state is weft's own.
func upstreamState(state string) string {
	if strings.HasPrefix(state, parkPrefix) {
		return ""
	}
	return state
}

// byRevision serves requests of 2026-07-28 and later, which carry no session,
// statelessly (the SDK's stateful handler does not serve that revision), and
// everything else with the stateful handler that legacy clients need.
func (g *Gateway) byRevision(stateful http.Handler, opts *mcp.StreamableHTTPOptions) http.Handler {
	o := *opts
	o.Stateless = true
	// On 2026-07-28 the POST is the whole request: a client that gives up
	// closes it, and the call (and its upstream request) must end with it.
	o.PropagateRequestCancellation = true
	stateless := g.relayStateless(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, &o), &o)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= newestVersion {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}
