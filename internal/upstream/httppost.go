package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// weft's own POST of a relayed tools/call to a Streamable HTTP upstream.
// go-sdk's streamable client connection costs ~110 µs and ~150 KB per call
// (bench/sdkclient_test.go: its request encoding, a goroutine per call, the
// envelope decoded and the result decoded again), where a plain POST of the
// same exchange costs ~45 µs and ~10 KB. go-sdk keeps the handshake, the
// session, the standalone GET stream and every other request; weft sends
// only the plain tools/call itself, through the same http.Client (headers,
// OAuth, TLS, proxy, headerTransport), with the session's headers, and reads
// its response: a JSON body or an event stream (httpsse.go), on which the
// notifications and the server's requests are handled by the same handlers
// go-sdk's session calls (httpstream.go). docs/guides/performance.md ("weft's
// own POST") has the measurements.

// postIDs numbers weft's posted calls; their ids are strings (rawIDPrefix),
// never the integers go-sdk's session uses.
var postIDs atomic.Int64

// posted is what a post needs of its connection; set by transport for a
// Streamable HTTP upstream.
type posted struct {
	client  *http.Client // the go-sdk connection's client, with OAuth as go-sdk's transport adds it
	url     string
	session atomic.Pointer[sessionValues] // the session's header values, made once
}

// closeIdle closes the idle connections of a closed or discarded poster
// and of its go-sdk transport (headerTransport.CloseIdleConnections),
// unless it is kept.
func (p *posted) closeIdle(kept *posted) {
	if p != nil && p != kept {
		p.client.CloseIdleConnections()
	}
}

// sessionValues are the session's headers' values for a POST
// (sessionHeaders), kept for the session id they were made for.
type sessionValues struct {
	id, version   string
	ids, versions []string
}

// takesHTTPRaw reports whether weft POSTs a tools/call on this connection
// itself: a Streamable HTTP upstream on a legacy revision (as for stdio,
// 2026-07-28 results, with their input requests and per-request metadata,
// are left to go-sdk), and not a retry that carries input responses.
func (c *Conn) takesHTTPRaw(ctx context.Context) bool {
	in := inputsFrom(ctx)
	return c.poster != nil && !c.newProtocol() && in.responses == nil && in.state == ""
}

// post sends one request and returns its result. Errors match those of
// go-sdk's session for the same failures: ctx.Err() when ctx ends (the
// upstream is told with notifications/cancelled), the upstream's
// *jsonrpc.Error wrapped as go-sdk wraps it, and HTTP failures worded as
// go-sdk words them (mcp.ErrSessionMissing for a 404 on the session).
// ctx is own's (the call's own context, httpowned.go), or one made from
// it; own is nil for a request that has none (weft's lists).
func (c *Conn) post(ctx context.Context, own *ownedCall, method string, params json.RawMessage) (json.RawMessage, error) {
	id, err := postCallID(postIDs.Add(1))
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	id.readsResult = method == listMethod
	data, err := postBody(id, method, params)
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	summary := sendingSummary(method)
	hreq, shared := own.request(ctx)
	defer hreq.reqs.end()
	if !shared { // a shared one is ended by own.release, after the call's end
		defer hreq.end()
	}
	resp, err := c.send(hreq.ctx, data, summary)
	if err == nil {
		var result json.RawMessage
		result, err = c.readResponse(ctx, hreq, resp, id, summary)
		if err == nil {
			return result, nil
		}
	}
	// An answered call's error is its answer's: a shared request context
	// (own's) may already have been ended by its stream's finish
	// (finishAnswered), which is no cancel of the call.
	if ctx.Err() != nil && !hreq.handedOff {
		c.goCancelled(ctx, id.id, ctx.Err())
		return nil, ctx.Err()
	}
	if errors.As(err, new(connFailure)) {
		c.failSession(err)
	}
	return nil, fmt.Errorf("calling %q: %w", method, err)
}

// sendingToolsCall is the summary of a posted tools/call, made once.
var sendingToolsCall = fmt.Sprintf("sending %q", "tools/call")

// sendingSummary is what go-sdk's errors for a request of method start
// with.
func sendingSummary(method string) string {
	if method == "tools/call" {
		return sendingToolsCall
	}
	return fmt.Sprintf("sending %q", method)
}

// send POSTs one message with the session's headers and checks the status
// as go-sdk's connection does. A 404 on the session ends it as go-sdk's
// connection would (sessionGone).
func (c *Conn) send(ctx context.Context, data []byte, summary string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.poster.url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header = c.postHeaders()
	resp, err := c.poster.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", summary, err)
	}
	if err := c.checkStatus(resp, summary); err != nil {
		return nil, err
	}
	if got, ours := resp.Header.Get("Mcp-Session-Id"), c.session.ID(); got != "" && ours != "" && got != ours {
		resp.Body.Close()
		return nil, fmt.Errorf("mismatching session IDs %q and %q", ours, got)
	}
	return resp, nil
}

// The values of a POST's fixed headers, shared by every request: a
// header's slice is only ever replaced (Header.Set) or copied (Clone),
// never written into.
var (
	postContentType = []string{"application/json"}
	postAccept      = []string{"application/json, text/event-stream"}
)

// postHeaders is a POST's header map, made in one step: the fixed headers
// and the session's, as sessionHeaders sets them, whose values are made
// once per session.
func (c *Conn) postHeaders() http.Header {
	h := make(http.Header, 5) // room for OAuth's Authorization
	h["Content-Type"] = postContentType
	h["Accept"] = postAccept
	v := c.poster.session.Load()
	if id := c.session.ID(); v == nil || v.id != id || v.version != c.info.ProtocolVersion {
		v = &sessionValues{id: id, version: c.info.ProtocolVersion, ids: []string{id}, versions: []string{c.info.ProtocolVersion}}
		c.poster.session.Store(v)
	}
	h["Mcp-Protocol-Version"] = v.versions
	if v.id != "" {
		h["Mcp-Session-Id"] = v.ids
	}
	return h
}

// sessionHeaders sets what go-sdk's connection sends on a legacy revision:
// the negotiated version and the session id.
func (c *Conn) sessionHeaders(h http.Header) {
	h.Set("Mcp-Protocol-Version", c.info.ProtocolVersion)
	if id := c.session.ID(); id != "" {
		h.Set("Mcp-Session-Id", id)
	}
}

// checkStatus is go-sdk's checkResponse: a transient status (429, 502,
// 503, 504) or a JSON-RPC error in a refused body fails the call only,
// a 404 on the session ends the session (sessionGone), any other status
// fails the connection (connFailure). The body is closed on error.
func (c *Conn) checkStatus(resp *http.Response, summary string) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	defer resp.Body.Close()
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return fmt.Errorf("%s: %v", summary, http.StatusText(code))
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxMessage())))
	if msg, _ := jsonrpc.DecodeMessage(body); msg != nil {
		if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
			return fmt.Errorf("%s: %w: %v", summary, r.Error, http.StatusText(code))
		}
	}
	if id := c.session.ID(); code == http.StatusNotFound && id != "" {
		c.sessionGone()
		return fmt.Errorf("%s: failed to connect (session ID: %v): %w", summary, id, mcp.ErrSessionMissing)
	}
	return connFailure{fmt.Errorf("%s: %v", summary, http.StatusText(code))}
}

// connFailure is an error on which go-sdk's connection fails, ending the
// session and every call in it: weft ends the session too (failSession),
// so that the hub reconnects as it would have.
type connFailure struct{ error }

func (e connFailure) Unwrap() error { return e.error }

// failSession ends the go-sdk session after a connFailure; the hub hears
// of it from the session's end (OnClosed), as after go-sdk's own failure.
func (c *Conn) failSession(err error) {
	c.logger.Warn("upstream stream failed; ending the session", "err", err)
	_ = c.session.Close()
}

// sessionGone lets go-sdk's connection find that the upstream ended the
// session, as it would have from the call's own 404: its next request (a
// ping) gets the same 404 and fails the connection with ErrSessionMissing,
// which ends the session and has the hub reconnect.
func (c *Conn) sessionGone() {
	ctx, cancel := context.WithTimeout(c.life, notifyCancelTimeout)
	defer cancel()
	_ = c.session.Ping(ctx, nil)
}

// readResponse reads the call's response from resp by its content type.
func (c *Conn) readResponse(ctx context.Context, hreq *postedRequest, resp *http.Response, id callID, summary string) (json.RawMessage, error) {
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(c.maxMessage())+1))
		if err != nil {
			return nil, connFailure{fmt.Errorf("%s: failed to read body: %v", summary, err)}
		}
		a, err := c.handleMessage(ctx, &hreq.reqs, shallowFor(id, body), id)
		if err != nil {
			return nil, connFailure{fmt.Errorf("%s: failed to decode response: %v", summary, err)}
		}
		if a == nil {
			return nil, fmt.Errorf("%s: the JSON response was not the call's response", summary)
		}
		return a.result, a.err
	case "text/event-stream":
		return c.readStream(ctx, hreq, resp, id, summary)
	}
	resp.Body.Close()
	return nil, fmt.Errorf("%s: unsupported content type %q", summary, ct)
}

// mediaType is a Content-Type's media type, as mime.ParseMediaType reads
// it; the two a Streamable HTTP server sends, written plainly, are taken
// as they are, without the parameters' map.
func mediaType(v string) string {
	switch v {
	case "text/event-stream", "application/json":
		return v
	}
	ct, _, _ := mime.ParseMediaType(v)
	return ct
}

// maxMessage bounds one message read from a stream or body, as go-sdk's
// MaxEventSize does (0: its default, negative: no bound).
func (c *Conn) maxMessage() int {
	switch n := c.opts.MaxMessageBytes; {
	case n > 0:
		return n
	case n < 0:
		return math.MaxInt32
	}
	return mcp.DefaultMaxEventSize
}

// goCancelled tells the upstream that call id was given up off the
// caller's return path, as go-sdk does: a slow upstream must not hold the
// caller past its own deadline. The goroutine is bounded by
// notifyCancelTimeout and by the connection's life; a closed connection
// sends nothing, as go-sdk's closed connection does not.
func (c *Conn) goCancelled(ctx context.Context, id jsonrpc.ID, why error) {
	if c.life.Err() != nil {
		return
	}
	go c.postCancelled(linkedCtx{Context: c.life, values: ctx}, id, why)
}

// postCancelled tells the upstream that call id was given up, best effort
// and bounded, as go-sdk does when a call's ctx ends.
func (c *Conn) postCancelled(ctx context.Context, id jsonrpc.ID, why error) {
	ctx, cancel := context.WithTimeout(ctx, notifyCancelTimeout)
	defer cancel()
	params, err := json.Marshal(&mcp.CancelledParams{RequestID: id.Raw(), Reason: why.Error()})
	if err != nil {
		return
	}
	c.postMessage(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// postMessage POSTs a notification or a response, which the upstream
// acknowledges with no body.
func (c *Conn) postMessage(ctx context.Context, msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return
	}
	resp, err := c.send(ctx, data, "sending a message")
	if err != nil {
		c.logger.Debug("post to upstream", "err", err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
