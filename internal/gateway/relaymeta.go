package gateway

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientMeta is what a 2026-07-28 request's _meta says of its client, read
// as go-sdk reads it. A client sends the same _meta with every request, and
// go-sdk reads the capabilities and the client info each time by encoding
// them again and decoding them through a fresh 32 KiB buffer
// (decodeMetaValue); the stateless relay reads them once per client
// (clientMetas) and hands weft what it read.
type clientMeta struct {
	version string
	info    *mcp.Implementation // nil when the request names no client
	caps    *mcp.ClientCapabilities
	// meta is the _meta of each relayed request of the client: the
	// revision, the capabilities as decoded JSON and the client info as
	// the typed value, which ServerRequest.ClientInfo returns as it is.
	// It is shared by the client's requests and only read: weft copies it
	// to add its own keys (delegate), and the upstream's request drops
	// these (upstream.Conn.requestMeta).
	meta mcp.Meta
	// forward is meta as weft forwards it (Gateway.delegate: with the
	// delegation depth, which a client's _meta the relay takes cannot
	// carry), made once, also only read; nil when delegate refuses.
	forward mcp.Meta
}

// maxClientMetas bounds the _meta kept; maxClientMetaBytes the size of one
// kept (a larger one is read for its request only).
const (
	maxClientMetas     = 64
	maxClientMetaBytes = 4096
)

// clientMetas remembers the _meta of recent requests, by their bytes.
type clientMetas struct {
	// delegate makes a client's forwarded _meta (clientMeta.forward);
	// nil: none is made.
	delegate func(mcp.Meta) (mcp.Meta, error)

	mu sync.RWMutex
	m  map[string]*clientMeta // nil: a _meta the relay leaves to go-sdk; guarded by mu
}

// read returns what raw says of the client, or false when the relay must
// leave the request to go-sdk (see readClientMeta).
func (cm *clientMetas) read(raw json.RawMessage) (*clientMeta, bool) {
	if !objectOf(raw) {
		return nil, false
	}
	cm.mu.RLock()
	c, seen := cm.m[string(raw)]
	cm.mu.RUnlock()
	if seen {
		return c, c != nil
	}
	c = readClientMeta(raw)
	if c != nil && cm.delegate != nil {
		c.forward, _ = cm.delegate(c.meta) // on error, delegate refuses each call
	}
	if len(raw) <= maxClientMetaBytes {
		cm.mu.Lock()
		if cm.m == nil || len(cm.m) >= maxClientMetas {
			cm.m = map[string]*clientMeta{}
		}
		cm.m[string(raw)] = c
		cm.mu.Unlock()
	}
	return c, c != nil
}

// readClientMeta reads a request's _meta with go-sdk's own accessors, so
// that what go-sdk would refuse (no or unreadable capabilities, unreadable
// client info) is left to it; so is any key beyond the three every
// 2026-07-28 request carries. It returns nil for those.
func readClientMeta(raw json.RawMessage) *clientMeta {
	var meta mcp.Meta
	if json.Unmarshal(raw, &meta) != nil || !onlyKeys(meta, metaKeys...) {
		return nil
	}
	version, _ := meta[mcp.MetaKeyProtocolVersion].(string)
	probe := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: meta}}
	c := &clientMeta{version: version, caps: probe.ClientCapabilities()}
	if c.caps == nil {
		return nil
	}
	c.meta = mcp.Meta{mcp.MetaKeyProtocolVersion: version, mcp.MetaKeyClientCapabilities: meta[mcp.MetaKeyClientCapabilities]}
	if _, named := meta[mcp.MetaKeyClientInfo]; named {
		if c.info = probe.ClientInfo(); c.info == nil {
			return nil
		}
		c.meta[mcp.MetaKeyClientInfo] = c.info
	}
	return c
}

type relayedKey struct{}

// relayedCall is a call the stateless relay makes, with what its _meta
// says of its client, already read.
type relayedCall struct {
	req *mcp.CallToolRequest
	who *clientMeta
}

// ClientCapabilities implements requestInfo.
func (c *relayedCall) ClientCapabilities() *mcp.ClientCapabilities { return c.who.caps }

// ProtocolVersion implements requestInfo.
func (c *relayedCall) ProtocolVersion() string { return c.req.ProtocolVersion() }

// relayedOf is the relayed call req is, or nil.
func relayedOf(ctx context.Context, req *mcp.CallToolRequest) *relayedCall {
	if c, ok := ctx.Value(relayedKey{}).(*relayedCall); ok && c.req == req {
		return c
	}
	return nil
}

// callInfo is what peerFor reads of req: for a call the stateless relay
// made, the capabilities it has read already, which req would decode again.
func callInfo(ctx context.Context, req *mcp.CallToolRequest) requestInfo {
	if c := relayedOf(ctx, req); c != nil {
		return c
	}
	return req
}

// delegateCall is delegate for a tool call: a call the stateless relay
// made, still with its client's shared _meta (no middleware replaced it:
// the maps are the same one), has that _meta's forwarded form already.
func (g *Gateway) delegateCall(ctx context.Context, req *mcp.CallToolRequest) (mcp.Meta, error) {
	meta := req.Params.Meta
	if c := relayedOf(ctx, req); c != nil && c.who.forward != nil && sameMap(meta, c.who.meta) {
		return c.who.forward, nil
	}
	return g.delegate(meta)
}

// sameMap reports whether a and b are the same map, not merely equal.
func sameMap(a, b mcp.Meta) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
