package gateway

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// The face serves one view of the hub's catalog: everything, or one agent's
// (internal/agentview). Each name a client sends is mapped through the view
// here, so a client of an agent neither reaches nor learns of anything
// outside its view.

// View is the view the face serves.
func (g *Gateway) View() *agentview.View { return g.view.Load() }

// SetView replaces the face's view (an agent's config changed) and brings
// its clients in step: only what changed for this view is announced.
func (g *Gateway) SetView(v *agentview.View) {
	g.view.Store(v)
	g.sync(g.hub.Catalog())
}

// snapshot is the view of the hub's current catalog.
func (g *Gateway) snapshot() *agentview.Snapshot { return g.View().Of(g.hub.Catalog()) }

// ResolveTool maps a tool name a client of the face sent to the hub's name:
// the one lookup every tools/call path takes (the fast path too).
func (g *Gateway) ResolveTool(name string) (string, error) {
	return g.View().Resolve(g.hub.Catalog(), name)
}

// callThrough calls the tool a client of the face knows as name.
func (g *Gateway) callThrough(ctx context.Context, peer upstream.Peer, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, error) {
	hubName, err := g.ResolveTool(name)
	if err != nil {
		return nil, err
	}
	var res *mcp.CallToolResult
	if slot := rawSlotFrom(ctx); slot != nil {
		res, err = slot.call(ctx, g.hub, peer, hubName, args, meta)
	} else {
		res, err = g.hub.CallTool(ctx, peer, hubName, args, meta)
	}
	if errors.Is(err, hub.ErrUnknownTool) {
		if why := g.instanceUnavailable(name); why != nil {
			return nil, unavailableTool(name, why) // the state, not just "unknown"
		}
	}
	return res, g.inView(err, "tool", name, hub.ErrUnknownTool)
}

// inView keeps the hub's unknown-item errors, which name the item as the
// hub knows it, from reaching an agent's client: it gets the name it sent.
func (g *Gateway) inView(err error, kind, name string, unknown error) error {
	v := g.View()
	if err == nil || !v.IsAgent() || !errors.Is(err, unknown) {
		return err
	}
	return &agentview.ErrOutside{Agent: v.Name(), Kind: kind, Name: name}
}

// promptThrough gets the prompt a client of the face knows as name.
func (g *Gateway) promptThrough(ctx context.Context, peer upstream.Peer, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	hubName, err := g.View().Prompt(g.hub.Catalog(), p.Name)
	if err != nil {
		return nil, err
	}
	res, err := g.hub.GetPrompt(ctx, peer, hubName, p.Arguments, p.Meta)
	return res, g.inView(err, "prompt", p.Name, hub.ErrUnknownPrompt)
}

// readThrough reads a resource of the face's view.
func (g *Gateway) readThrough(ctx context.Context, peer upstream.Peer, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	if v := g.View(); v.IsAgent() {
		server, err := v.Resource(g.hub.Catalog(), p.URI)
		if err != nil {
			return nil, err
		}
		res, err := g.hub.ReadResourceFrom(ctx, peer, server, p.URI, p.Meta)
		return res, g.inView(err, "resource", p.URI, hub.ErrUnknownURI)
	}
	res, err := g.hub.ReadResource(ctx, peer, p.URI, p.Meta)
	return res, g.inView(err, "resource", p.URI, hub.ErrUnknownURI)
}

// completeThrough routes a completion request within the face's view.
func (g *Gateway) completeThrough(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	params, server, err := g.View().Complete(g.hub.Catalog(), params)
	if err != nil {
		return nil, err
	}
	if server != "" {
		return g.hub.CompleteFrom(ctx, server, params)
	}
	return g.hub.Complete(ctx, params)
}

// CloseSessions ends every client session of the face (its agent was
// removed).
func (g *Gateway) CloseSessions() {
	for ss := range g.server.Sessions() {
		_ = ss.Close()
	}
}

// statusesInView are the hub's server statuses the face's view shows, under
// the names its clients know.
func (g *Gateway) statusesInView() []hub.ServerStatus {
	all := g.hub.List()
	v := g.View()
	if !v.IsAgent() {
		return all
	}
	var out []hub.ServerStatus
	for _, st := range all {
		if name, ok := v.ServerSeen(st.Name); ok {
			st.Name = name
			out = append(out, st)
		}
	}
	return out
}
