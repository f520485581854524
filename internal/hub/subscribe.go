package hub

import (
	"context"
	"fmt"

	"github.com/weft-dev/weft/internal/upstream"
)

// Subscribe subscribes to uri at the server that listed it (or whose
// template matches it).
func (h *Hub) Subscribe(ctx context.Context, uri string) error {
	return h.onResourceServer(ctx, uri, (*upstream.Conn).Subscribe)
}

// Unsubscribe withdraws a subscription to uri at its server.
func (h *Hub) Unsubscribe(ctx context.Context, uri string) error {
	return h.onResourceServer(ctx, uri, (*upstream.Conn).Unsubscribe)
}

func (h *Hub) onResourceServer(ctx context.Context, uri string, op func(*upstream.Conn, context.Context, string) error) error {
	server, ok := h.Catalog().ResourceServer(uri)
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownURI, uri)
	}
	return h.do(ctx, server, func(ctx context.Context, conn *upstream.Conn) error {
		return op(conn, ctx, uri)
	})
}

// OnResourceUpdated registers f to be called with the URI of every
// notifications/resources/updated an upstream sends.
func (h *Hub) OnResourceUpdated(f func(uri string)) {
	h.listenMu.Lock()
	defer h.listenMu.Unlock()
	h.updated = append(h.updated, f)
}

func (h *Hub) resourceUpdated(uri string) {
	h.listenMu.Lock()
	fs := append([]func(string){}, h.updated...)
	h.listenMu.Unlock()
	for _, f := range fs {
		f(uri)
	}
}
