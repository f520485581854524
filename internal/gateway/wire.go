package gateway

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/upstream"
)

// asToolResult marks a failure that a tool call reports as a result with
// isError set, so that the model reads why and can try something else.
const asToolResult = 0

// wireRule says how one kind of error reaches a client.
type wireRule struct {
	err  error // matched with errors.Is
	code int64 // JSON-RPC error code, or asToolResult
}

// wireRules is the one table from weft's own errors to the wire. The
// request was wrong (unknown name): a JSON-RPC error, as the SDK answers for
// names it does not list. weft could not carry out a right request
// (draining, disconnected, connecting, breaker, timeout, limit, upstream
// gone, delegation too deep): a tool result with isError for tools/call, and an internal error
// for the other requests, which have no error result. The errors carry
// their context (the server's name, the limit) from where they were made;
// nothing here adds to it.
var wireRules = []wireRule{
	{hub.ErrUnknownTool, jsonrpc.CodeInvalidParams},
	{hub.ErrUnknownPrompt, jsonrpc.CodeInvalidParams},
	{hub.ErrUnknownURI, mcp.CodeResourceNotFound},
	{hub.ErrBadReference, jsonrpc.CodeInvalidParams},
	{hub.ErrDraining, asToolResult},
	{hub.ErrDisconnected, asToolResult},
	{hub.ErrConnecting, asToolResult},
	{oauth.ErrNeedsLogin, asToolResult},
	{hub.ErrCircuitOpen, asToolResult},
	{hub.ErrTimeout, asToolResult},
	{hub.ErrNoCallSlot, asToolResult},
	{hub.ErrHubClosed, asToolResult},
	{upstream.ErrUpstreamGone, asToolResult},
	{upstream.ErrClosedInFlight, asToolResult},
	{upstream.ErrHung, asToolResult},
	{ErrDelegationDepth, asToolResult},
}

// toolPrefix starts the text of a tool result that weft, not the tool,
// failed: the model should not blame the tool's arguments.
const toolPrefix = "weft: "

// toolError turns the error of a tools/call into what the client gets: an
// upstream's own JSON-RPC error unchanged, a JSON-RPC error for a wrong
// request, and otherwise a tool result with isError set.
func toolError(err error) (*mcp.CallToolResult, error) {
	code, ok := wireCode(err)
	if !ok {
		if wire := upstreamError(err); wire != nil {
			return nil, wire
		}
	}
	if code != asToolResult {
		return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
	}
	return errorResult(errors.New(toolPrefix + err.Error())), nil
}

// requestError turns the error of any other request (prompts, resources,
// completion) into a JSON-RPC error with the code the table gives.
func requestError(err error) error {
	if err == nil {
		return nil
	}
	code, ok := wireCode(err)
	if !ok {
		if wire := upstreamError(err); wire != nil {
			return wire
		}
	}
	if code == asToolResult {
		code = jsonrpc.CodeInternalError
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// wireCode looks err up in wireRules; ok is false when no rule matches.
// The rules come first: weft's own failure may wrap a JSON-RPC error the
// SDK made up locally.
func wireCode(err error) (code int64, ok bool) {
	for _, r := range wireRules {
		if errors.Is(err, r.err) {
			return r.code, true
		}
	}
	return asToolResult, false
}

// codeRejectedByTransport is the go-sdk's own error for a request its
// transport could not deliver: a local failure, not the upstream's answer.
const codeRejectedByTransport = -32005

// upstreamError returns the JSON-RPC error an upstream answered, which is
// relayed as it was sent: its code and data are the upstream's to define.
func upstreamError(err error) *jsonrpc.Error {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) && wire.Code != codeRejectedByTransport {
		return wire
	}
	return nil
}

// metaToolError turns the error of a call made through weft__call_tool
// into a tool result: the meta tool was called rightly, so even an unknown
// name or an upstream's protocol error is its result, not a protocol error.
func metaToolError(err error) *mcp.CallToolResult {
	return errorResult(errors.New(toolPrefix + err.Error()))
}
