package hub

import (
	"context"
	"fmt"

	"github.com/weft-dev/weft/internal/upstream"
)

// Subscribe subscribes to uri at the server that listed it (or whose
// template matches it).
func (h *Hub) Subscribe(ctx context.Context, uri string) error {
	server, _ := h.Catalog().ResourceServer(uri)
	return h.SubscribeAt(ctx, server, uri)
}

// Unsubscribe withdraws a subscription to uri at its server.
func (h *Hub) Unsubscribe(ctx context.Context, uri string) error {
	server, _ := h.Catalog().ResourceServer(uri)
	return h.UnsubscribeAt(ctx, server, uri)
}

// SubscribeAt subscribes to uri at the named server: a view that knows
// which server serves uri (an agent's separate instance lists the same URIs
// as the configured server) routes the subscription itself.
func (h *Hub) SubscribeAt(ctx context.Context, server, uri string) error {
	return h.onServer(ctx, server, uri, (*upstream.Conn).Subscribe)
}

// UnsubscribeAt withdraws a subscription that SubscribeAt made.
func (h *Hub) UnsubscribeAt(ctx context.Context, server, uri string) error {
	return h.onServer(ctx, server, uri, (*upstream.Conn).Unsubscribe)
}

func (h *Hub) onServer(ctx context.Context, server, uri string, op func(*upstream.Conn, context.Context, string) error) error {
	if server == "" {
		return fmt.Errorf("%w %q", ErrUnknownURI, uri)
	}
	return h.do(ctx, server, func(ctx context.Context, conn *upstream.Conn) error {
		return op(conn, ctx, uri)
	})
}

// OnResourceUpdated registers f to be called with the server and URI of
// every notifications/resources/updated an upstream sends. The server
// matters: an agent's separate instance lists the same URIs as the
// configured server, and an update from one is not news to subscribers of
// the other.
func (h *Hub) OnResourceUpdated(f func(server, uri string)) {
	h.listenMu.Lock()
	defer h.listenMu.Unlock()
	h.updated = append(h.updated, f)
}

func (h *Hub) resourceUpdated(server, uri string) {
	h.listenMu.Lock()
	fs := append([]func(string, string){}, h.updated...)
	h.listenMu.Unlock()
	for _, f := range fs {
		f(server, uri)
	}
}
