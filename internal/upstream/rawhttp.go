package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// Raw results from a Streamable HTTP upstream. go-sdk's streamable client
// connection cannot be wrapped as rawConn wraps a stdio one (the session
// relies on its unexported sessionUpdated), so go-sdk still sends the
// relayed tools/call and reads its response stream. What weft owns is the
// http.RoundTripper under it (headerTransport), which reads that stream
// first: for a call marked by CallToolRaw, its own response (by id, as its
// request wrote it) with a plain result (plainResult) is kept as it came
// and handed to go-sdk as a small stand-in error response with that id. go-sdk ends the call with
// that error instead of decoding the result into a CallToolResult (two of
// its 32 KiB decoders and the content items) for weft to encode again.
// Everything else on the stream (progress and log notifications, the
// upstream's own requests, an error response, a result that is not plain)
// reaches go-sdk untouched and in order, so nothing the call carries is
// handled differently. docs/guides/performance.md ("HTTP upstreams") has
// the measurements.

// rawTakenCode and rawTakenMessage make the stand-in response; only a call
// whose httpRaw was filled treats them as its result.
const (
	rawTakenCode    = -32099
	rawTakenMessage = "weft took the result raw"
)

// httpRaw is one call's claim on its response stream.
type httpRaw struct {
	claimed atomic.Bool // the first stream read for the call claims it
	taken   atomic.Bool // set once result holds the upstream's result
	result  json.RawMessage
	isError bool
	// id is the call's JSON-RPC id as its request wrote it, set by the
	// claim: only the response with this id is the call's.
	id []byte
	// inEvent is set from an event's first data line to its end (a blank
	// line): only a first data line can be a whole message. Read by the
	// claimed stream's one reader only.
	inEvent bool
}

type httpRawKey struct{}

// takesHTTPRaw reports whether a tools/call on this connection can take its
// result raw from the HTTP stream: a Streamable HTTP upstream on a legacy
// revision (as for stdio, 2026-07-28 results are left to go-sdk), and not a
// retry that carries input responses.
func (c *Conn) takesHTTPRaw(ctx context.Context) bool {
	in := inputsFrom(ctx)
	return c.cfg.Type == config.TransportHTTP && !c.newProtocol() && in.responses == nil && in.state == ""
}

// callToolHTTPRaw is CallTool with the result as the upstream sent it when
// the stream gave a plain one, and encoded from go-sdk's typed result
// otherwise.
func (c *Conn) callToolHTTPRaw(ctx context.Context, peer Peer, name string, args json.RawMessage, meta mcp.Meta) (RawResult, error) {
	h := &httpRaw{}
	res, err := c.CallTool(context.WithValue(ctx, httpRawKey{}, h), peer, name, args, meta)
	if err != nil {
		var stand *jsonrpc.Error
		if h.taken.Load() && errors.As(err, &stand) && stand.Code == rawTakenCode && stand.Message == rawTakenMessage {
			return RawResult{JSON: h.result, IsError: h.isError}, nil
		}
		return RawResult{}, err
	}
	return encodeResult(res)
}

// claimHTTPRaw is the httpRaw of the call that sent req when resp is that
// call's response stream (a 200 with a JSON or event-stream body) and no
// earlier response of the call claimed it; nil otherwise.
func claimHTTPRaw(req *http.Request, resp *http.Response) *httpRaw {
	if req.Method != http.MethodPost || resp.StatusCode != http.StatusOK {
		return nil
	}
	h, _ := req.Context().Value(httpRawKey{}).(*httpRaw)
	if h == nil {
		return nil
	}
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "text/event-stream") && !strings.HasPrefix(ct, "application/json") {
		return nil
	}
	id := requestID(req)
	if id == nil || !h.claimed.CompareAndSwap(false, true) {
		return nil
	}
	h.id = id // read by the stream's reader, which starts after RoundTrip returns
	return h
}

// requestIDHead is how go-sdk's encoding of a request starts, up to its id.
var requestIDHead = []byte(`{"jsonrpc":"2.0","id":`)

// requestID is the id of the JSON-RPC request req sends, read from the
// start of its body as go-sdk writes it, without decoding the rest; nil
// when the body cannot be read again or does not start that way (the
// call then takes its result through go-sdk).
func requestID(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer body.Close()
	var head [64]byte
	n, _ := io.ReadFull(body, head[:])
	rest, ok := bytes.CutPrefix(head[:n], requestIDHead)
	if end := bytes.IndexByte(rest, ','); ok && end > 0 {
		return bytes.Clone(rest[:end])
	}
	return nil
}

// line passes one line of the event stream on, the response with a plain
// result replaced by the stand-in. The go-sdk server writes each message as
// one data line; a message split over several lines is passed on as it is,
// even when one of its later lines would read as a response by itself.
func (h *httpRaw) line(line []byte) []byte {
	if h == nil || h.taken.Load() {
		return line
	}
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok {
		if len(bytes.TrimSpace(line)) == 0 {
			h.inEvent = false // a blank line ends the event
		}
		return line
	}
	if h.inEvent {
		return line // a later data line of the event's message
	}
	h.inEvent = true
	stand, ok := h.take(bytes.TrimSpace(data))
	if !ok {
		return line
	}
	out := make([]byte, 0, len("data: ")+len(stand)+1)
	return append(append(append(out, "data: "...), stand...), '\n')
}

// body is line for a whole JSON response body.
func (h *httpRaw) body(msg []byte) []byte {
	if h == nil || h.taken.Load() {
		return msg
	}
	if stand, ok := h.take(bytes.TrimSpace(msg)); ok {
		return stand
	}
	return msg
}

// take keeps msg's result when msg is this call's response with a plain
// result, and returns the stand-in response with msg's id. msg is read as
// go-sdk reads it (resultResponse), so the result kept and the id answered
// are the ones go-sdk would have read; a message go-sdk would refuse is left
// to it.
func (h *httpRaw) take(msg []byte) ([]byte, bool) {
	if !bytes.Contains(msg, []byte(`"result"`)) {
		return nil, false // a notification, a request or an error: go-sdk's
	}
	id, result, ok := resultResponse(msg)
	if !ok || !bytes.Equal(id, h.id) { // another call's response, or none
		return nil, false
	}
	shape, ok := plainResult(result)
	if !ok {
		return nil, false
	}
	h.result, h.isError = result, shape.IsError // Unmarshal copied the bytes
	h.taken.Store(true)
	stand := make([]byte, 0, len(standInHead)+len(id)+len(standInTail))
	return append(append(append(stand, standInHead...), id...), standInTail...), true
}

// The stand-in response is standInHead, the call's id, standInTail.
var (
	standInHead = `{"jsonrpc":"2.0","id":`
	standInTail = `,"error":{"code":` + strconv.Itoa(rawTakenCode) + `,"message":"` + rawTakenMessage + `"}}`
)
