package gateway

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// subscribe and unsubscribe keep Gateway.subs: which client sessions
// subscribed to which URI, so that weft subscribes at the upstream once per
// URI and withdraws only when the last client has. (The SDK keeps its own
// per-session record to deliver notifications, but does not expose it.)
// subMu is held across the upstream request so that a subscribe and an
// unsubscribe of one URI cannot cross; subscriptions are rare.

func (g *Gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	g.subMu.Lock()
	defer g.subMu.Unlock()
	if len(g.subs[uri]) == 0 {
		// The view names the server: an agent's separate instance lists
		// the same URIs as the configured server.
		server, err := g.View().Resource(g.hub.Catalog(), uri)
		if err == nil {
			err = g.hub.SubscribeAt(ctx, server, uri)
		}
		if err != nil {
			return notFound(uri, err)
		}
		g.subs[uri] = map[*mcp.ServerSession]bool{}
		if g.subAt == nil {
			g.subAt = map[string]string{}
		}
		g.subAt[uri] = server
	}
	if !g.watched[req.Session] {
		g.watched[req.Session] = true
		go g.forgetWhenGone(req.Session)
	}
	g.subs[uri][req.Session] = true
	return nil
}

// forgetWhenGone withdraws the subscriptions of a session that ends without
// unsubscribing, so that neither the session nor the upstream subscription
// outlives it. It ends with the session.
func (g *Gateway) forgetWhenGone(ss *mcp.ServerSession) {
	_ = ss.Wait()
	g.subMu.Lock()
	defer g.subMu.Unlock()
	delete(g.watched, ss)
	for uri, sessions := range g.subs {
		if !sessions[ss] {
			continue
		}
		delete(sessions, ss)
		if len(sessions) == 0 {
			if err := g.withdraw(context.Background(), uri); err != nil {
				g.logger.Debug("unsubscribe after the client left", "uri", uri, "err", err)
			}
		}
	}
}

func (g *Gateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	g.subMu.Lock()
	defer g.subMu.Unlock()
	sessions := g.subs[uri]
	if !sessions[req.Session] {
		return nil
	}
	delete(sessions, req.Session)
	if len(sessions) > 0 {
		return nil
	}
	return notFound(uri, g.withdraw(ctx, uri))
}

// withdraw forgets the subscription to uri, which its last session left,
// at the server it was made at. subMu is held.
func (g *Gateway) withdraw(ctx context.Context, uri string) error {
	server := g.subAt[uri]
	delete(g.subs, uri)
	delete(g.subAt, uri)
	return g.hub.UnsubscribeAt(ctx, server, uri)
}

// resourceUpdated tells the subscribed clients; the SDK sends it to the
// sessions subscribed to uri. An update from a server other than the one
// this face subscribed at (the configured server for an agent with its own
// instance, or the reverse) is not for this face's clients.
func (g *Gateway) resourceUpdated(server, uri string) {
	g.subMu.Lock()
	at, ok := g.subAt[uri]
	g.subMu.Unlock()
	if !ok || at != server {
		return
	}
	if err := g.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		g.logger.Debug("relay resource update", "uri", uri, "err", err)
	}
}

// notFound turns an unknown URI into the protocol's resource-not-found error.
func notFound(uri string, err error) error {
	if errors.Is(err, hub.ErrUnknownURI) {
		return mcp.ResourceNotFoundError(uri)
	}
	return err
}
