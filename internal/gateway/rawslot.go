package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// rawSlot lets a relayed tools/call (relay.go, relaystateless.go) carry the upstream's result
// as JSON past the receiving middleware, which deal in typed results only
// (mcp.Result has unexported methods: raw bytes cannot be one). The call's
// terminal, callThrough, fills the slot with the JSON and returns a stub
// that says no more than isError; the relay writes the JSON when the stub
// is what came out of the middleware, and the typed result otherwise (a
// middleware that answered for itself, or an error turned into a result).
type rawSlot struct {
	json json.RawMessage
	stub *mcp.CallToolResult // what callThrough returned for json: &stubResult
	// stubResult is the stub itself, kept in the slot to save its
	// allocation.
	stubResult mcp.CallToolResult
}

type rawSlotKey struct{}

func withRawSlot(ctx context.Context, s *rawSlot) context.Context {
	return context.WithValue(ctx, rawSlotKey{}, s)
}

func rawSlotFrom(ctx context.Context) *rawSlot {
	s, _ := ctx.Value(rawSlotKey{}).(*rawSlot)
	return s
}

// call makes the hub's raw call and fills the slot.
func (s *rawSlot) call(ctx context.Context, h *hub.Hub, peer upstream.Peer, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, error) {
	res, err := h.CallToolRaw(ctx, peer, name, args, meta)
	if err != nil {
		return nil, err
	}
	s.json = res.JSON
	s.stubResult = mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{}}
	s.stub = &s.stubResult
	return s.stub, nil
}

// result is the JSON to answer with for res, the result the middleware
// returned: the slot's when res is its stub.
func (s *rawSlot) result(res mcp.Result) (json.RawMessage, bool) {
	stub, ok := res.(*mcp.CallToolResult)
	return s.json, ok && stub != nil && stub == s.stub
}

// typed is res, a parked call's outcome, with the slot's stub replaced by
// its typed result (decode): for a retry that resumed the call, which
// go-sdk answers and which knows nothing of the slot.
func (s *rawSlot) typed(res any) (any, error) {
	if s == nil {
		return res, nil
	}
	if r, ok := res.(mcp.Result); ok {
		if _, stub := s.result(r); stub {
			return s.decode()
		}
	}
	return res, nil
}

// decode is the slot's JSON as the typed result go-sdk's client session
// would have decoded it to.
func (s *rawSlot) decode() (*mcp.CallToolResult, error) {
	out := &mcp.CallToolResult{}
	if err := json.Unmarshal(s.json, out); err != nil {
		return nil, fmt.Errorf("calling %q: %w", "tools/call", err)
	}
	return out, nil
}

// statelessRaw is what go-sdk's stateless handler sends for a raw result
// (statelessResult for a typed one), spliced into the upstream's bytes
// without decoding them: the server's info as the only _meta key, first,
// and "resultType":"complete" last, where CallToolResult.MarshalJSON puts
// them around the fields it read. It reports false for a result whose
// bytes it cannot splice exactly: one with a _meta of its own (go-sdk
// merges the server's info into it, re-encoded with its keys sorted),
// input requests (input_required, with its own checks) or a result type
// of its own (go-sdk sets it), and anything not an object; those take the
// typed path. A string that merely reads like one of those keys sends a
// result the typed way too: the check is a scan, not a decode.
func (g *Gateway) statelessRaw(raw json.RawMessage) (json.RawMessage, bool) {
	body := bytes.TrimSpace(raw)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' ||
		hasKeyFold(body, `"_meta"`) || hasKeyFold(body, `"inputRequests"`) || hasKeyFold(body, `"resultType"`) {
		return nil, false
	}
	fields := bytes.TrimSpace(body[1 : len(body)-1])
	if len(fields) == 0 { // not a plain result: it has a content list
		return nil, false
	}
	info := g.infoJSON
	if len(info) == 0 {
		return nil, false
	}
	const head, tail = `{"_meta":{"` + mcp.MetaKeyServerInfo + `":`, `,"resultType":"complete"}`
	out := make([]byte, 0, len(head)+len(info)+2+len(fields)+len(tail))
	out = append(out, head...)
	out = append(out, info...)
	out = append(out, "},"...)
	out = append(out, fields...)
	out = append(out, tail...)
	return out, true
}

// hasKeyFold reports whether body holds quoted, ignoring case (go-sdk's
// decoder matches field names so), anywhere: a key, or a string that
// looks like one, either way a result the splice leaves to the typed path.
func hasKeyFold(body []byte, quoted string) bool {
	for i := 0; i+len(quoted) <= len(body); i++ {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			return false
		}
		i += j
		if i+len(quoted) <= len(body) && bytes.EqualFold(body[i:i+len(quoted)], []byte(quoted)) {
			return true
		}
	}
	return false
}
