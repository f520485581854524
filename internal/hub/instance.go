package hub

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// ReadResourceFrom reads uri from the named server: a view that knows
// which server serves it (an agent's separate instance lists the same URIs
// as the configured server) routes the read itself.
func (h *Hub) ReadResourceFrom(ctx context.Context, peer upstream.Peer, server, uri string, meta mcp.Meta) (*mcp.ReadResourceResult, error) {
	if server == "" {
		return nil, fmt.Errorf("%w %q", ErrUnknownURI, uri)
	}
	var res *mcp.ReadResourceResult
	err := h.do(ctx, server, func(ctx context.Context, conn *upstream.Conn) (err error) {
		res, err = conn.ReadResource(ctx, peer, uri, meta)
		return err
	})
	return res, err
}

// CompleteFrom sends a completion request, its reference already in the
// server's own terms, to the named server: a view routes a completion of
// its separate instance's resource templates itself, as it routes reads.
func (h *Hub) CompleteFrom(ctx context.Context, server string, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if server == "" {
		return nil, ErrBadReference
	}
	var res *mcp.CompleteResult
	err := h.do(ctx, server, func(ctx context.Context, conn *upstream.Conn) (err error) {
		res, err = conn.Complete(ctx, params)
		return err
	})
	return res, err
}

// UnavailableServer is Unavailable for a server named outright: a view
// that knows which server a missing name belongs to asks it directly (an
// agent's separate instance has a namespace that naming rewrites, so no
// name starts with it). It returns nil when the server is active or unknown.
func (h *Hub) UnavailableServer(name string) error {
	for _, s := range h.visible() {
		if s.name == name {
			return s.check()
		}
	}
	return nil
}
