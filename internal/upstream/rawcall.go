package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RawResult is a tools/call result as JSON, for a caller that relays it
// without looking inside (the face's relay).
type RawResult struct {
	// JSON is the result object, with a "content" list that is never null.
	JSON json.RawMessage
	// IsError is the result's isError, for breakers and observers.
	IsError bool
}

// rawShape is the part of a result the raw path reads.
type rawShape struct {
	Content       json.RawMessage `json:"content"`
	IsError       bool            `json:"isError"`
	InputRequests json.RawMessage `json:"inputRequests"`
}

// field reads one top-level field of a result into the shape as
// json.Unmarshal into the struct would (keys matched ignoring case, a
// later one winning; isError a bool or null), without its allocations
// (topFields); the raw values are the result's bytes. It reports false
// where json.Unmarshal would fail.
func (s *rawShape) field(key, value []byte) bool {
	switch {
	case bytes.EqualFold(key, []byte("content")):
		s.Content = value
	case bytes.EqualFold(key, []byte("inputRequests")):
		s.InputRequests = value
	case bytes.EqualFold(key, []byte("isError")):
		switch string(value) {
		case "true":
			s.IsError = true
		case "false":
			s.IsError = false
		case "null":
		default:
			return false
		}
	}
	return true
}

// CallToolRaw is CallTool with the result as JSON. On a stdio connection
// with a legacy revision the result travels as the upstream sent it (see
// rawConn), skipping go-sdk's typed decode of the result and its content;
// a result that is not a plain one (no content list, an input-required
// result) is decoded and handled exactly as CallTool would. On a Streamable
// HTTP connection weft POSTs the call itself (httppost.go). Elsewhere it is
// CallTool, its result encoded.
func (c *Conn) CallToolRaw(ctx context.Context, peer Peer, name string, args json.RawMessage, meta mcp.Meta) (RawResult, error) {
	return c.CallToolRawUntil(ctx, time.Time{}, peer, name, args, meta)
}

// CallToolRawUntil is CallToolRaw ended by deadline (zero: none) as a
// context's deadline would end it, with context.DeadlineExceeded. On the
// stdio path the wait for the result watches the deadline itself: the
// call makes no context of its own.
func (c *Conn) CallToolRawUntil(ctx context.Context, deadline time.Time, peer Peer, name string, args json.RawMessage, meta mcp.Meta) (RawResult, error) {
	in := inputsFrom(ctx)
	if c.raw != nil && !c.newProtocol() && in.responses == nil && in.state == "" {
		return c.callRaw(ctx, deadline, peer, name, args, meta, func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			return c.writeToolCall(ctx, deadline, params)
		}, nil)
	}
	if c.takesHTTPRaw(ctx) {
		own := ownContext(ctx, deadline)
		defer own.release()
		return c.callRaw(own.ctx, time.Time{}, peer, name, args, meta, func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			// The peer rides in ctx: what the upstream sends on a posted
			// call's stream is relayed to this call's client alone
			// (httpstream.go). A stdio call needs no such link: its
			// upstream's messages are routed by the router.
			return c.post(withPeer(ctx, peer), own, "tools/call", params)
		}, own)
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	res, err := c.CallTool(ctx, peer, name, args, meta)
	if err != nil {
		return RawResult{}, err
	}
	return encodeResult(res)
}

// callRaw sends a tools/call through send, which returns its result as
// the upstream sent it, and finishes it as CallTool would. Its params are
// encoded once, from the caller's _meta as requestMeta and track would
// make it, without copying it (rawCallParams). own is the call's own
// context, which Close cancels (the posted path); nil says that send
// itself ends when the connection is closed under it (the stdio path:
// rawConn.call watches the connection's life), so the call needs no
// context of its own; deadline (zero: none) is send's too, and bounds
// what follows a result that is not plain.
func (c *Conn) callRaw(ctx context.Context, deadline time.Time, peer Peer, name string, args json.RawMessage, meta mcp.Meta,
	send func(context.Context, json.RawMessage) (json.RawMessage, error), own *ownedCall) (RawResult, error) {
	token := meta[progressTokenKey]
	t := tracked{ctx: ctx}
	if own != nil {
		t.call = c.router.start(ctx, peer, token, own.close) // Close cancels it (closeAll)
	} else {
		t.call = c.router.start(ctx, peer, token, nil)
	}
	defer c.end(t)
	ctx, id := t.ctx, t.call.id
	var extra map[string]any
	if level, ok := c.addedLevel(peer, meta); ok {
		extra = map[string]any{mcp.MetaKeyLogLevel: level}
	}
	if token != nil {
		if extra == nil {
			extra = map[string]any{}
		}
		extra[progressTokenKey] = id
	}
	data, err := rawCallParams(name, args, meta, extra)
	if err != nil {
		return RawResult{}, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	raw, err := send(ctx, data)
	if err != nil {
		if own.closed() {
			return RawResult{}, ErrClosedInFlight
		}
		return RawResult{}, closedErr(ctx, err)
	}
	if shape, ok := plainResult(raw); ok {
		return RawResult{JSON: raw, IsError: shape.IsError}, nil
	}
	params := &mcp.CallToolParams{Name: name, Meta: c.requestMeta(peer, meta), Arguments: json.RawMessage("{}")}
	if len(args) > 0 {
		params.Arguments = args
	}
	if token != nil {
		params.SetProgressToken(id)
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	if own != nil {
		var cancel context.CancelFunc
		ctx, cancel = own.roundsContext()
		defer cancel()
	}
	res, err := c.typedResult(ctx, peer, params, raw)
	if err != nil {
		if own.closed() {
			return RawResult{}, ErrClosedInFlight
		}
		return RawResult{}, closedErr(ctx, err)
	}
	return encodeResult(res)
}

// writeToolCall writes a tools/call on the stdio connection (rawConn),
// ended by deadline (zero: none).
func (c *Conn) writeToolCall(ctx context.Context, deadline time.Time, params json.RawMessage) (json.RawMessage, error) {
	raw, err := c.raw.call(ctx, c.life.Done(), deadline, "tools/call", params)
	if errors.Is(err, mcp.ErrConnectionClosed) && c.life.Err() != nil {
		// Close ended the connection: its cancel of ctx (the router's
		// closeAll, after the session's end) may not have run yet.
		return nil, ErrClosedInFlight
	}
	return raw, err
}

// plainResult reads what the raw path needs of a result, and reports
// whether the result can be relayed as it is: an object with a content
// list and no input requests.
func plainResult(raw json.RawMessage) (rawShape, bool) {
	var shape rawShape
	b := bytes.TrimLeft(raw, " \t\r\n")
	if len(b) == 0 || b[0] != '{' || !json.Valid(raw) || !topFields(raw, shape.field) {
		return shape, false
	}
	content := bytes.TrimSpace(shape.Content)
	inputs := bytes.TrimSpace(shape.InputRequests)
	return shape, len(content) > 0 && content[0] == '[' && (len(inputs) == 0 || bytes.Equal(inputs, []byte("null")))
}

// typedResult decodes a raw result that is not plain, as go-sdk's session
// would have, and finishes the call as CallTool does (input-required
// rounds made through the session).
func (c *Conn) typedResult(ctx context.Context, peer Peer, params *mcp.CallToolParams, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var first mcp.CallToolResult
	if err := json.Unmarshal(raw, &first); err != nil {
		return nil, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	sent := false
	return roundTrip(ctx, peer, func(answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		if !sent {
			sent = true
			return &first, nil
		}
		p := *params
		p.InputResponses, p.RequestState = answers, state
		return c.session.CallTool(withPeer(ctx, peer), &p)
	}, func(r *mcp.CallToolResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
}

// encodeResult is a typed result as the face sends it: no content is an
// empty list, never null (as go-sdk's server does).
func encodeResult(res *mcp.CallToolResult) (RawResult, error) {
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if res.Content == nil {
		r := *res
		r.Content = []mcp.Content{}
		res = &r
	}
	data, err := json.Marshal(res)
	if err != nil {
		return RawResult{}, fmt.Errorf("encode the result of tools/call: %w", err)
	}
	return RawResult{JSON: data, IsError: res.IsError}, nil
}
