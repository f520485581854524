package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The messages on a posted call's stream besides its response. go-sdk's
// session would hand the notifications to the client's handlers and answer
// the server's requests through its receiving middleware; weft's POST calls
// the same handlers (client.go) and middleware (relayMiddleware): the
// notifications in the order they came, before the call returns, and each
// request in a goroutine of its own (serverRequests), whose answer it POSTs
// back with the session's headers. Handlers get the call's context, which
// carries its peer (withPeer): go-sdk cannot tell which call a message
// came with and routes it to the newest call in flight, or for a log
// message to every client with a call in flight; weft knows the stream,
// so the message goes to the client of the call it came with only, and a
// server request pending on that client ends with the call.

// callID is a posted call's id, and its JSON encoding to match responses
// without decoding them.
type callID struct {
	id      jsonrpc.ID
	encoded string
	// readsResult is set when the caller reads the result strictly itself
	// (weft's tools/list, toolPage.read): its response's result is then
	// not checked here first (resultOfList).
	readsResult bool
}

// postCallID is the id of weft's n-th posted call: rawIDPrefix and n,
// which need no escaping, so the encoding is the key in quotes (no
// json.Marshal on every call). The key is the encoding's inside: one
// string for both.
func postCallID(n int64) (callID, error) {
	var buf [len(rawIDPrefix) + 22]byte
	enc := append(append(buf[:0], '"'), rawIDPrefix...)
	encoded := string(append(strconv.AppendInt(enc, n, 10), '"'))
	id, err := jsonrpc.MakeID(encoded[1 : len(encoded)-1])
	return callID{id: id, encoded: encoded}, err
}

// answer is the call's response: its result or its error.
type answer struct {
	result json.RawMessage
	err    error
}

// handleMessage handles one message of the call's response stream: the
// call's response is returned; anything else is handled and nil returned.
// A response with a plain result is read without go-sdk's decode (the
// same strict reading as the stdio raw path); every other message is
// decoded by go-sdk's jsonrpc. The server's requests are answered in
// reqs' goroutines (inline when reqs is nil).
func (c *Conn) handleMessage(ctx context.Context, reqs *serverRequests, data []byte, want callID) (*answer, error) {
	read := resultResponse
	if want.readsResult {
		read = resultOfList
	}
	if id, result, ok := read(data); ok && string(id) == want.encoded {
		return &answer{result: result}, nil
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, err
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if m.ID != want.id {
			// Not this call's: go-sdk would hand it to a call of its own,
			// and none of its calls is sent on this stream.
			c.logger.Debug("upstream sent another call's response on a posted call's stream", "id", m.ID.Raw())
			return nil, nil
		}
		if m.Error != nil {
			return &answer{err: m.Error}, nil
		}
		return &answer{result: m.Result}, nil
	case *jsonrpc.Request:
		switch {
		case m.IsCall() && reqs != nil:
			reqs.start(ctx, m, c.answerRequest)
		case m.IsCall():
			c.answerRequest(ctx, m)
		case m.Method == "notifications/cancelled" && reqs != nil:
			var p mcp.CancelledParams
			if c.decodeParams(m, &p) {
				reqs.cancel(p.RequestID)
			}
		default:
			c.handleNote(ctx, m)
		}
	}
	return nil, nil
}

// handleNote passes a notification to the handler go-sdk's session would
// call for it. It is not counted (ordering.go): a posted call's stream is
// not read through shallowBody's counting check, and its notifications are relayed before
// the call returns.
func (c *Conn) handleNote(ctx context.Context, m *jsonrpc.Request) {
	switch m.Method {
	case "notifications/message":
		var p mcp.LoggingMessageParams
		if c.decodeParams(m, &p) {
			c.relayLog(ctx, &p)
		}
	case "notifications/progress":
		var p mcp.ProgressNotificationParams
		if c.decodeParams(m, &p) {
			c.relayProgress(ctx, &mcp.ProgressNotificationClientRequest{Session: c.session, Params: &p})
		}
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		c.markDirty()
	case "notifications/resources/updated":
		var p mcp.ResourceUpdatedNotificationParams
		if c.decodeParams(m, &p) {
			c.resourceUpdated(c.life, &mcp.ResourceUpdatedNotificationRequest{Session: c.session, Params: &p})
		}
	}
}

// decodeParams decodes a message's params; a notification that does not
// decode is dropped, as go-sdk drops it.
func (c *Conn) decodeParams(m *jsonrpc.Request, p any) bool {
	if len(m.Params) == 0 {
		return true
	}
	if err := json.Unmarshal(m.Params, p); err != nil {
		c.logger.Debug("upstream message with params that do not decode", "method", m.Method, "err", err)
		return false
	}
	return true
}

// answerRequest answers a server-to-client request through the handlers
// go-sdk's session would use, and POSTs the answer back.
func (c *Conn) answerRequest(ctx context.Context, m *jsonrpc.Request) {
	res, err := c.serverRequest(ctx, m)
	resp := &jsonrpc.Response{ID: m.ID, Error: err}
	if err == nil {
		data, merr := json.Marshal(res)
		if merr != nil {
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: merr.Error()}
		} else {
			resp.Result = data
		}
	}
	c.postMessage(ctx, resp)
}

// serverRequest is the answer to one server-to-client request: roots and
// elicitation through relayMiddleware, sampling through the sampling
// handler, ping as go-sdk answers it.
func (c *Conn) serverRequest(ctx context.Context, m *jsonrpc.Request) (any, error) {
	notFound := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method %q not found", m.Method)}
	}
	switch m.Method {
	case "ping":
		return struct{}{}, nil
	case "roots/list":
		var p mcp.ListRootsParams
		if !c.decodeParams(m, &p) {
			return nil, invalidParams(m)
		}
		return c.relayMiddleware(notFound)(ctx, m.Method, &mcp.ListRootsRequest{Session: c.session, Params: &p})
	case "elicitation/create":
		var p mcp.ElicitParams
		if !c.decodeParams(m, &p) {
			return nil, invalidParams(m)
		}
		return c.relayMiddleware(notFound)(ctx, m.Method, &mcp.ElicitRequest{Session: c.session, Params: &p})
	case "sampling/createMessage":
		var p mcp.CreateMessageWithToolsParams
		if !c.decodeParams(m, &p) {
			return nil, invalidParams(m)
		}
		return c.createMessage(ctx, &mcp.CreateMessageWithToolsRequest{Session: c.session, Params: &p})
	}
	return notFound(ctx, m.Method, nil)
}

func invalidParams(m *jsonrpc.Request) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params for %q", m.Method)}
}

// serverRequests are the server's requests that a posted call's stream
// carried and that wait on their answers. As go-sdk's session does, each
// is answered in a goroutine of its own, so that the stream goes on being
// read, and the server's notifications/cancelled for one cancels it; the
// call owns the goroutines and ends them when it returns (end).
type serverRequests struct {
	mu      sync.Mutex
	cancels map[jsonrpc.ID]context.CancelFunc
	wg      sync.WaitGroup
}

// start answers m with answer in a goroutine, in a context the server's
// cancellation or the call's end cancels.
func (r *serverRequests) start(ctx context.Context, m *jsonrpc.Request, answer func(context.Context, *jsonrpc.Request)) {
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	if r.cancels == nil {
		r.cancels = map[jsonrpc.ID]context.CancelFunc{}
	}
	r.cancels[m.ID] = cancel
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			delete(r.cancels, m.ID)
			r.mu.Unlock()
			cancel()
		}()
		answer(ctx, m)
	}()
}

// cancel cancels the request the server gave up on.
func (r *serverRequests) cancel(requestID any) {
	id, err := jsonrpc.MakeID(requestID)
	if err != nil {
		return
	}
	r.mu.Lock()
	cancel := r.cancels[id]
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// end cancels the requests still waiting and waits for their goroutines.
func (r *serverRequests) end() {
	r.mu.Lock()
	for _, cancel := range r.cancels {
		cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
}
