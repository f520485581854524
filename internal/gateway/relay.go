package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relay answers the hot request of a stateful Streamable HTTP session, a
// tools/call of a forwarded tool, with a plain application/json response,
// instead of handing it to go-sdk's handler. go-sdk decodes each request
// three more times (envelope, _meta twice, params), each through a fresh
// 32 KiB decoder, and answers on an SSE stream of its own; that work was
// most of the face's cost per call (docs/guides/performance.md, "The
// relay"). The call itself runs exactly as go-sdk would run it: weft's
// receiving middleware, then forwardTool, with a CallToolRequest of the
// same session; the response is encoded by go-sdk's jsonrpc package.
//
// A request is relayed only when nothing of it needs the request's own SSE
// stream, and only for a session go-sdk has set up; everything else goes
// to go-sdk unchanged (see take).
type relay struct {
	g    *Gateway
	next http.Handler // go-sdk's stateful handler
	cop  *http.CrossOriginProtection
	// localhostCheck is go-sdk's DNS-rebinding check (see rebound).
	localhostCheck bool
	// idle is go-sdk's session timeout. go-sdk does not see relayed
	// requests, so a session's requests go to go-sdk at least every idle/4
	// to keep it from idling out (see sdkDue).
	idle time.Duration

	mu       sync.Mutex
	sessions map[string]*relaySession // by session id; guarded by mu
}

// relaySession is what the relay knows of one go-sdk session.
type relaySession struct {
	ss *mcp.ServerSession
	// user is the user of the token go-sdk accepted for the session.
	user string
	// sdkSeen is when go-sdk last served a request of the session (unix
	// nanoseconds); 0 until the relay has passed one on.
	sdkSeen atomic.Int64

	mu       sync.Mutex
	inflight map[jsonrpc.ID]context.CancelFunc // relayed calls; guarded by mu
	// calls counts the relayed calls in flight, watch keeps go-sdk's idle
	// timer off while there are any (relayidle.go), and closed is set when
	// the session ends; guarded by mu.
	calls  int
	watch  *time.Timer
	closed bool
}

func newRelay(g *Gateway, next http.Handler, opts *mcp.StreamableHTTPOptions) *relay {
	return &relay{g: g, next: next, cop: opts.CrossOriginProtection, localhostCheck: !opts.DisableLocalhostProtection,
		idle: opts.SessionTimeout, sessions: map[string]*relaySession{}}
}

// envelope is the part of a JSON-RPC message the relay reads.
type envelope struct {
	JSONRPC string
	ID      json.RawMessage
	Method  string
	Params  json.RawMessage
	raw     *rawEnvelope // with the params' keys
}

// readEnvelope is body's envelope from raw, what the message check's walk
// found in it (checkEnvelope), with its keys as go-sdk reads them:
// case-sensitively (encoding/json would take "METHOD" for "method"). With
// no walk to hand (a body that did not come through checkBody), it walks
// body itself.
func readEnvelope(body []byte, raw *rawEnvelope) (envelope, bool) {
	raw, ok := walkedEnvelope(body, raw)
	if !ok {
		return envelope{}, false
	}
	env := envelope{ID: raw.id, Params: raw.params, raw: raw}
	if raw.jsonrpc != nil {
		env.JSONRPC, ok = jsonText(raw.jsonrpc)
	}
	if raw.method != nil && ok {
		env.Method, ok = jsonText(raw.method)
	}
	return env, ok
}

// jsonText decodes raw, a JSON string, without a decoder when it holds
// only printable ASCII and no escapes; false when raw is not a string.
func jsonText(raw []byte) (string, bool) {
	switch string(raw) { // the envelope's usual values, without a copy
	case `"2.0"`:
		return "2.0", true
	case `"tools/call"`:
		return "tools/call", true
	}
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && plainASCII(raw[1:n-1]) {
		return string(raw[1 : n-1]), true
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}

func (rl *relay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if r.Method != http.MethodPost || id == "" {
		rl.next.ServeHTTP(w, r)
		return
	}
	body, raw, err := requestBody(r)
	if err != nil {
		rl.pass(w, r, id, nil)
		return
	}
	env, ok := readEnvelope(body, raw)
	if !ok {
		rl.pass(w, r, id, nil)
		return
	}
	s := rl.session(id)
	if s == nil && env.Method == "notifications/initialized" {
		rl.initialized(w, r, id)
		return
	}
	if s == nil || s.user != userOf(r) { // another user's: go-sdk refuses it
		rl.next.ServeHTTP(w, r)
		return
	}
	if env.Method == "notifications/cancelled" && len(env.ID) == 0 && rl.headersOK(r) && s.cancel(env.Params) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if rl.list(w, r, s, &env) { // listpages.go
		return
	}
	call, jid, ok := rl.take(r, s, &env)
	if !ok {
		rl.pass(w, r, id, s)
		return
	}
	rl.serve(w, r, s, &call.req, &call.slot, jid)
}

// pass hands r to go-sdk and notes that go-sdk saw the session.
func (rl *relay) pass(w http.ResponseWriter, r *http.Request, id string, s *relaySession) {
	if s == nil {
		rl.mu.Lock()
		s = rl.sessions[id]
		rl.mu.Unlock()
	}
	if s != nil {
		s.sdkSeen.Store(time.Now().UnixNano())
	}
	rl.next.ServeHTTP(w, r)
}

// session is the relay's record of go-sdk's session id, or nil.
func (rl *relay) session(id string) *relaySession {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.sessions[id]
}

// initialized passes a client's notifications/initialized to go-sdk and,
// when go-sdk accepts it, records the session (go-sdk answers no other
// request before it) with the user whose token go-sdk accepted: go-sdk
// refuses a session to any other user, so the relay leaves their requests
// to it. It forgets the session when the session ends.
func (rl *relay) initialized(w http.ResponseWriter, r *http.Request, id string) {
	cw := &pageCapture{ResponseWriter: w}
	rl.next.ServeHTTP(cw, r)
	if cw.code != http.StatusAccepted {
		return
	}
	for ss := range rl.g.server.Sessions() {
		if ss.ID() != id {
			continue
		}
		s := &relaySession{ss: ss, user: userOf(r), inflight: map[jsonrpc.ID]context.CancelFunc{}}
		s.sdkSeen.Store(time.Now().UnixNano())
		rl.mu.Lock()
		if rl.sessions[id] != nil {
			rl.mu.Unlock()
			return
		}
		rl.sessions[id] = s
		rl.mu.Unlock()
		go rl.forget(id, s) // ends with the session
		return
	}
}

// userOf is the user of r's verified token, as go-sdk reads it.
func userOf(r *http.Request) string {
	if info := auth.TokenInfoFromContext(r.Context()); info != nil {
		return info.UserID
	}
	return ""
}

func (rl *relay) forget(id string, s *relaySession) {
	_ = s.ss.Wait()
	rl.mu.Lock()
	delete(rl.sessions, id)
	rl.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	if s.watch != nil {
		s.watch.Stop()
		s.watch = nil
	}
	for _, cancel := range s.inflight { // as go-sdk cancels its calls
		cancel()
	}
	s.mu.Unlock()
}

// take reports whether the relay answers env itself, with the call to
// make and the response's id. It leaves to go-sdk anything that needs the
// request's SSE stream or go-sdk's own checks: a params _meta (a progress
// token, 2026-07-28 fields, delegation), a session with a log level set
// or whose client can be asked for sampling or elicitation, a tool the
// face does not list (go-sdk and explainMissingTools answer those), a
// header go-sdk would refuse, and a session go-sdk has not seen for idle/4.
func (rl *relay) take(r *http.Request, s *relaySession, env *envelope) (*relayedRequest, jsonrpc.ID, bool) {
	if env.Method != "tools/call" || env.JSONRPC != "2.0" || len(env.Params) == 0 || env.Params[0] != '{' {
		return nil, jsonrpc.ID{}, false
	}
	jid, ok := relayID(env.ID)
	if !ok || !rl.headersOK(r) || rl.sdkDue(s) {
		return nil, jsonrpc.ID{}, false
	}
	if env.raw.name == nil || env.raw.paramsOther { // params has name, maybe arguments, nothing else
		return nil, jsonrpc.ID{}, false
	}
	name, ok := jsonText(env.raw.name)
	if !ok || name == "" || !rl.g.forwarded(name) {
		return nil, jsonrpc.ID{}, false
	}
	args := json.RawMessage(env.raw.args)
	if len(args) > 0 && args[0] != '{' {
		return nil, jsonrpc.ID{}, false
	}
	ip := s.ss.InitializeParams()
	if ip == nil || ip.ProtocolVersion >= newestVersion || rl.g.levels.get(s.ss) != "" {
		return nil, jsonrpc.ID{}, false
	}
	if caps := ip.Capabilities; caps != nil && (caps.Sampling != nil || caps.Elicitation != nil) {
		return nil, jsonrpc.ID{}, false
	}
	call := &relayedRequest{params: mcp.CallToolParamsRaw{Name: name, Arguments: args}, extra: requestExtraOf(r)}
	call.req = mcp.CallToolRequest{Session: s.ss, Params: &call.params, Extra: &call.extra}
	return call, jid, true
}

// relayedRequest is what the relay makes for a call it takes, in one
// allocation: go-sdk's request with its params and extra, and the slot
// its raw result comes back in.
type relayedRequest struct {
	req    mcp.CallToolRequest
	params mcp.CallToolParamsRaw
	extra  mcp.RequestExtra
	slot   rawSlot
}

// relayID is the JSON-RPC id of a call as go-sdk would read it: a string
// or an integer.
func relayID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if len(raw) > 0 && raw[0] == '"' {
		s, ok := jsonText(raw)
		if !ok {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n <= maxSafeID && n >= -maxSafeID {
		id, err := jsonrpc.MakeID(float64(n)) // go-sdk decodes a number to float64
		return id, err == nil
	}
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return jsonrpc.ID{}, false
	}
	switch v := v.(type) {
	case string:
		id, err := jsonrpc.MakeID(v)
		return id, err == nil
	case float64:
		if v != float64(int64(v)) {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(v)
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}

// relayCall runs a relayed tools/call through the face's receiving
// middleware in go-sdk's order (New adds them: the daemon's outermost,
// then explainMissingTools and the log levels), ending in what go-sdk's
// tools/call does for a forwarded tool.
func (g *Gateway) relayCall(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
	return g.relayChain(ctx, method, req)
}

// buildRelayChain composes relayCall's handler once, in New.
func (g *Gateway) buildRelayChain() {
	h := mcp.MethodHandler(func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		res, err := g.forwardTool(ctx, req.(*mcp.CallToolRequest))
		if err != nil || res == nil {
			return nil, err
		}
		return nonNullContent(res), nil
	})
	g.relayChain = g.receiving(h)
}

// receiving wraps h in the face's receiving middleware in go-sdk's order
// (New adds them: the daemon's outermost, then explainMissingTools and the
// log levels), for a request the relay answers.
func (g *Gateway) receiving(h mcp.MethodHandler) mcp.MethodHandler {
	h = g.levels.middleware(h)
	h = g.explainMissingTools(h)
	for _, m := range slices.Backward(g.opts.Middleware) {
		h = m(h)
	}
	return h
}

// forwarded reports whether the face lists name as an upstream's tool.
func (g *Gateway) forwarded(name string) bool {
	set := g.listedTools.Load()
	return set != nil && (*set)[name]
}

// headersOK holds the relay to what go-sdk accepts: a same-origin request
// that accepts both response kinds, in a legacy revision the face speaks;
// no Last-Event-ID, which go-sdk refuses on a POST, and no rebound Host.
func (rl *relay) headersOK(r *http.Request) bool {
	if !sdkTakesPost(r, rl.localhostCheck, rl.cop) {
		return false
	}
	v := r.Header.Get("Mcp-Protocol-Version")
	return v == "" || (v < newestVersion && slices.Contains(protocolVersions, v))
}

// sdkDue reports whether the session's request should go to go-sdk to
// reset its idle timer.
func (rl *relay) sdkDue(s *relaySession) bool {
	seen := s.sdkSeen.Load()
	if seen == 0 {
		return true
	}
	return rl.idle > 0 && time.Since(time.Unix(0, seen)) > rl.idle/4
}

// serve makes the call through weft's receiving middleware and
// forwardTool, as go-sdk would, and writes the JSON response: the
// upstream's result as it came when the call could carry it raw
// (rawslot.go), else the typed result marshalled.
func (rl *relay) serve(w http.ResponseWriter, r *http.Request, s *relaySession, call *mcp.CallToolRequest, slot *rawSlot, jid jsonrpc.ID) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	switch tracked, closed := s.track(jid, cancel); {
	case closed: // go-sdk answers the request of an ended session
		rl.next.ServeHTTP(w, r)
		return
	case !tracked:
		// go-sdk's answer to a call whose id is in flight on the session.
		writeJSONError(w, http.StatusBadRequest, jid, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("duplicate in-flight request ID %v", jid.Raw())})
		return
	}
	defer s.untrack(jid)
	rl.busy(s, r)
	defer rl.done(s)
	res, err := rl.g.relayCall(withRawSlot(ctx, slot), "tools/call", call)
	if ctx.Err() != nil && s.ended() {
		// go-sdk cancels a session's calls when it ends; the spec answers
		// an ended session's request with 404.
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	var result json.RawMessage
	if raw, ok := slot.result(res); err == nil && ok {
		result = raw
	} else if err == nil {
		result, err = json.Marshal(res)
	}
	writeJSONResponse(w, jid, result, err)
}

// nonNullContent is what go-sdk's callTool does to a result: no content is
// an empty list, never null.
func nonNullContent(res mcp.Result) mcp.Result {
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.Content == nil {
		r2 := *r
		r2.Content = []mcp.Content{}
		return &r2
	}
	return res
}

// track records a relayed call's cancel under its id; it records nothing
// when a relayed call of that id is in flight, or the session has ended.
func (s *relaySession) track(key jsonrpc.ID, cancel context.CancelFunc) (tracked, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, true
	}
	if _, dup := s.inflight[key]; dup {
		return false, false
	}
	s.inflight[key] = cancel
	return true, false
}

// ended reports whether the session has ended.
func (s *relaySession) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *relaySession) untrack(key jsonrpc.ID) {
	s.mu.Lock()
	delete(s.inflight, key)
	s.mu.Unlock()
}

// cancel ends the relayed call a notifications/cancelled names and reports
// whether there was one; other cancellations are go-sdk's.
func (s *relaySession) cancel(params json.RawMessage) bool {
	var p map[string]json.RawMessage // case-sensitive, as go-sdk reads it
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, ok := relayID(p["requestId"])
	if !ok {
		return false
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}
