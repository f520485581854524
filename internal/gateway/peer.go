package gateway

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionPeer relays an upstream's server-to-client traffic to the client
// session whose request caused it. A client that did not declare a
// capability gets a clear error instead of a request it cannot answer.
type sessionPeer struct{ ss *mcp.ServerSession }

func (p sessionPeer) caps() *mcp.ClientCapabilities {
	if ip := p.ss.InitializeParams(); ip != nil && ip.Capabilities != nil {
		return ip.Capabilities
	}
	return &mcp.ClientCapabilities{}
}

func (p sessionPeer) CreateMessage(ctx context.Context, params *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	if p.caps().Sampling == nil {
		return nil, errors.New("the client connected to weft does not support sampling")
	}
	return p.ss.CreateMessageWithTools(ctx, params)
}

func (p sessionPeer) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p.caps().Elicitation == nil {
		return nil, errors.New("the client connected to weft does not support elicitation")
	}
	return p.ss.Elicit(ctx, params)
}

func (p sessionPeer) ListRoots(ctx context.Context, params *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	if p.caps().RootsV2 == nil {
		return nil, errors.New("the client connected to weft does not support roots")
	}
	return p.ss.ListRoots(ctx, params)
}

func (p sessionPeer) NotifyProgress(ctx context.Context, params *mcp.ProgressNotificationParams) error {
	return p.ss.NotifyProgress(ctx, params)
}

func (p sessionPeer) Log(ctx context.Context, params *mcp.LoggingMessageParams) error {
	return p.ss.Log(ctx, params)
}
