package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// CallTool routes a call of the exposed tool name to its upstream. A tool
// result with isError set is a result, not an error.
func (h *Hub) CallTool(ctx context.Context, peer upstream.Peer, name string, args json.RawMessage, meta mcp.Meta) (res *mcp.CallToolResult, err error) {
	err = h.callTool(ctx, name, args, meta, func(ctx context.Context, conn *upstream.Conn, deadline time.Time, tool string, meta mcp.Meta) (bool, error) {
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		res, err = conn.CallTool(ctx, peer, tool, args, meta)
		return res != nil && res.IsError, err
	})
	return res, err
}

// CallToolRaw is CallTool with the result as JSON (upstream.CallToolRaw),
// under the same guards and observers.
func (h *Hub) CallToolRaw(ctx context.Context, peer upstream.Peer, name string, args json.RawMessage, meta mcp.Meta) (res upstream.RawResult, err error) {
	err = h.callTool(ctx, name, args, meta, func(ctx context.Context, conn *upstream.Conn, deadline time.Time, tool string, meta mcp.Meta) (bool, error) {
		res, err = conn.CallToolRawUntil(ctx, deadline, peer, tool, args, meta)
		return res.IsError, err
	})
	return res, err
}

// callTool runs call, which makes the upstream call of the exposed tool
// name and reports whether its result is an error result, under the
// tool's guards (doTool) and the observers; call must end by the deadline
// it is given (see doTool).
func (h *Hub) callTool(ctx context.Context, name string, args json.RawMessage, meta mcp.Meta,
	call func(ctx context.Context, conn *upstream.Conn, deadline time.Time, tool string, meta mcp.Meta) (bool, error)) (err error) {
	ctx, obs := h.observeStart(ctx, name, args, meta)
	isError := false
	if obs != nil {
		meta = obs.Meta
		defer func() { h.observeEnd(ctx, obs, &mcp.CallToolResult{IsError: isError}, err) }()
	}
	t, err := h.AwaitTool(ctx, name)
	if err != nil {
		return err
	}
	if obs != nil {
		obs.Server = t.Server
	}
	return h.doTool(ctx, t.Server, t.Original, func(ctx context.Context, conn *upstream.Conn, deadline time.Time) (err error) {
		sent := time.Now()
		isError, err = call(ctx, conn, deadline, t.Original, meta)
		if obs != nil {
			obs.Upstream = time.Since(sent)
		}
		return err
	})
}

// GetPrompt routes a prompt request to its upstream.
func (h *Hub) GetPrompt(ctx context.Context, peer upstream.Peer, name string, args map[string]string, meta mcp.Meta) (*mcp.GetPromptResult, error) {
	p, ok := h.Catalog().Prompt(name)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownPrompt, name)
	}
	var res *mcp.GetPromptResult
	err := h.do(ctx, p.Server, func(ctx context.Context, conn *upstream.Conn) (err error) {
		res, err = conn.GetPrompt(ctx, peer, p.Original, args, meta)
		return err
	})
	return res, err
}

// ReadResource routes a read to the server that listed uri (or whose
// template matches it).
func (h *Hub) ReadResource(ctx context.Context, peer upstream.Peer, uri string, meta mcp.Meta) (*mcp.ReadResourceResult, error) {
	server, _ := h.Catalog().ResourceServer(uri)
	return h.ReadResourceFrom(ctx, peer, server, uri, meta) // instance.go
}

// Complete routes a completion request by its reference: a prompt's exposed
// name, or a resource URI or template.
func (h *Hub) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if params == nil || params.Ref == nil {
		return nil, ErrBadReference
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
		return nil, fmt.Errorf("%w (got %q)", ErrBadReference, ref.Type)
	}
	return h.CompleteFrom(ctx, server, &p)
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

// Unavailable explains a name missing from the catalog when it lies in the
// namespace of a server that is configured but not active (
// disconnected, connecting, draining): the caller learns which server and
// why, not just that the tool is unknown. It returns nil otherwise.
func (h *Hub) Unavailable(name string) error {
	for _, s := range h.visible() {
		ns := s.config().Namespace()
		if ns == "" || !strings.HasPrefix(name, ns+h.opts.Separator) {
			continue
		}
		if err := s.check(); err != nil {
			return err
		}
	}
	return nil
}
