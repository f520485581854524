package hub

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// CallTool routes a call of the exposed tool name to its upstream. The call
// counts as in flight for its whole duration, on every exit path, and is
// bounded by the server's timeout.
func (h *Hub) CallTool(ctx context.Context, peer upstream.Peer, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, error) {
	t, ok := h.Catalog().Tool(name)
	if !ok {
		return nil, fmt.Errorf("%w %q: not in the catalog (list tools or use weft__search_tools)", ErrUnknownTool, name)
	}
	conn, done, err := h.admit(t.Server)
	if err != nil {
		return nil, err
	}
	defer done()
	ctx, cancel := h.bound(ctx, t.Server)
	defer cancel()
	res, err := conn.CallTool(ctx, peer, t.Original, args, meta)
	if err != nil {
		return nil, fmt.Errorf("%s: call %s: %w", t.Server, t.Original, err)
	}
	return res, nil
}

// GetPrompt routes a prompt request to its upstream.
func (h *Hub) GetPrompt(ctx context.Context, peer upstream.Peer, name string, args map[string]string, meta mcp.Meta) (*mcp.GetPromptResult, error) {
	p, ok := h.Catalog().Prompt(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownPrompt, name)
	}
	conn, done, err := h.admit(p.Server)
	if err != nil {
		return nil, err
	}
	defer done()
	ctx, cancel := h.bound(ctx, p.Server)
	defer cancel()
	return conn.GetPrompt(ctx, peer, p.Original, args, meta)
}

// ReadResource routes a read to the server that listed uri (or whose
// template matches it).
func (h *Hub) ReadResource(ctx context.Context, peer upstream.Peer, uri string, meta mcp.Meta) (*mcp.ReadResourceResult, error) {
	server, ok := h.Catalog().ResourceServer(uri)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownURI, uri)
	}
	conn, done, err := h.admit(server)
	if err != nil {
		return nil, err
	}
	defer done()
	ctx, cancel := h.bound(ctx, server)
	defer cancel()
	return conn.ReadResource(ctx, peer, uri, meta)
}

// Complete routes a completion request by its reference: a prompt's exposed
// name, or a resource URI or template.
func (h *Hub) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if params == nil || params.Ref == nil {
		return nil, fmt.Errorf("completion without a reference")
	}
	cat := h.Catalog()
	p := *params
	ref := *params.Ref
	p.Ref = &ref
	var server string
	switch ref.Type {
	case "ref/prompt":
		pr, ok := cat.Prompt(ref.Name)
		if !ok {
			return nil, fmt.Errorf("%w %q", ErrUnknownPrompt, ref.Name)
		}
		server, ref.Name = pr.Server, pr.Original
	case "ref/resource":
		s, ok := cat.templateServer(ref.URI)
		if !ok {
			return nil, fmt.Errorf("%w %q", ErrUnknownURI, ref.URI)
		}
		server = s
	default:
		return nil, fmt.Errorf("unsupported completion reference type %q", ref.Type)
	}
	conn, done, err := h.admit(server)
	if err != nil {
		return nil, err
	}
	defer done()
	ctx, cancel := h.bound(ctx, server)
	defer cancel()
	return conn.Complete(ctx, &p)
}

// templateServer finds the server of a resource template (exact template
// string) or of a concrete URI.
func (c *Catalog) templateServer(uri string) (string, bool) {
	for _, t := range c.Templates {
		if t.Def.URITemplate == uri {
			return t.Server, true
		}
	}
	return c.ResourceServer(uri)
}

func (h *Hub) admit(name string) (*upstream.Conn, func(), error) {
	s, err := h.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	return s.begin()
}

func (h *Hub) bound(ctx context.Context, name string) (context.Context, context.CancelFunc) {
	s, err := h.lookup(name)
	if err != nil || s.cfg.Timeout() <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.cfg.Timeout())
}
