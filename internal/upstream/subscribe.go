package upstream

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subscribe asks the upstream for notifications/resources/updated about uri;
// they reach Options.OnResourceUpdated.
func (c *Conn) Subscribe(ctx context.Context, uri string) error {
	return c.session.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
}

// Unsubscribe withdraws a subscription to uri.
func (c *Conn) Unsubscribe(ctx context.Context, uri string) error {
	return c.session.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
}

// resourceUpdated passes an upstream's notifications/resources/updated on.
func (c *Conn) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	if c.opts.OnResourceUpdated != nil && req.Params != nil {
		c.opts.OnResourceUpdated(req.Params.URI)
	}
}
