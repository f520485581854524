package gateway

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// rawSlot lets a relayed tools/call (relay.go) carry the upstream's result
// as JSON past the receiving middleware, which deal in typed results only
// (mcp.Result has unexported methods: raw bytes cannot be one). The call's
// terminal, callThrough, fills the slot with the JSON and returns a stub
// that says no more than isError; the relay writes the JSON when the stub
// is what came out of the middleware, and the typed result otherwise (a
// middleware that answered for itself, or an error turned into a result).
type rawSlot struct {
	json json.RawMessage
	stub *mcp.CallToolResult // what callThrough returned for json
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
	s.stub = &mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{}}
	return s.stub, nil
}

// result is the JSON to answer with for res, the result the middleware
// returned: the slot's when res is its stub.
func (s *rawSlot) result(res mcp.Result) (json.RawMessage, bool) {
	stub, ok := res.(*mcp.CallToolResult)
	return s.json, ok && stub != nil && stub == s.stub
}
