package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// statelessRelay is the relay (relay.go) for a 2026-07-28 request, which
// carries no session: go-sdk's stateless handler builds, initialises and
// closes a whole ServerSession for each such request, on top of the decodes
// the relay saves. A plain tools/call of a forwarded tool is answered here
// as go-sdk would answer it, through the same middleware and forwardTool
// and with the same result, as application/json; everything else goes to
// go-sdk (see take).
//
// The call's CallToolRequest has no Session: nil marks a stateless request
// the relay answers. weft reads what the request says of its client from
// its _meta (ServerRequest.ClientInfo and friends read it there first; the
// capabilities the relay has read already, see relaymeta.go), and treats
// it as go-sdk's temporary session would be treated: a stateless HTTP
// caller (callerOfCall), whose calls are parked while an upstream asks for
// input (peerFor, inRevision), to which no notification can be sent
// (sessionPeer.target).
type statelessRelay struct {
	g    *Gateway
	next http.Handler // go-sdk's stateless handler
	cop  *http.CrossOriginProtection
	// clients remembers what the _meta of recent requests said.
	clients clientMetas
	// localhostCheck is go-sdk's DNS-rebinding check of a request to a
	// loopback address, on unless the options turn it off.
	localhostCheck bool
}

func (g *Gateway) relayStateless(next http.Handler, opts *mcp.StreamableHTTPOptions) http.Handler {
	return &statelessRelay{g: g, next: next, cop: opts.CrossOriginProtection, localhostCheck: !opts.DisableLocalhostProtection,
		clients: clientMetas{delegate: g.delegate}}
}

func (sr *statelessRelay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	method := sr.relayedMethod(r)
	if r.Method != http.MethodPost || method == "" {
		sr.next.ServeHTTP(w, r)
		return
	}
	body, env, err := requestBody(r)
	if err != nil {
		sr.next.ServeHTTP(w, r)
		return
	}
	if method == "tools/list" {
		if !sr.list(w, r, body, env) { // liststateless.go
			sr.next.ServeHTTP(w, r)
		}
		return
	}
	st, jid, ok := sr.take(r, body, env)
	if !ok {
		sr.next.ServeHTTP(w, r)
		return
	}
	sr.serve(w, r, st, jid)
}

// metaKeys are the _meta keys a relayed request may carry: what every
// 2026-07-28 request says of its client. Anything more (a progress token,
// a log level, delegation, trace context) goes to go-sdk.
var metaKeys = []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo}

// take reports whether the relay answers the request itself, with the call
// to make and the response's id: a tools/call with a name, arguments and
// _meta only (a retry that answers input requests goes to go-sdk, which
// resumes the parked call), of a tool the face lists whose schema binds no
// argument to a header, whose _meta go-sdk would accept for the revision
// the headers name.
func (sr *statelessRelay) take(r *http.Request, body []byte, env *rawEnvelope) (*statelessRequest, jsonrpc.ID, bool) {
	c, ok := readStatelessCall(body, env)
	if !ok {
		return nil, jsonrpc.ID{}, false
	}
	jid, ok := relayID(c.id)
	if !ok {
		return nil, jsonrpc.ID{}, false
	}
	name := r.Header.Get("Mcp-Name")
	if name == "" || !c.named(name) || !sr.g.forwarded(name) || sr.g.bindsHeaders(name) {
		return nil, jsonrpc.ID{}, false
	}
	if c.args != nil && !objectOf(c.args) && string(c.args) != "null" { // go-sdk's client sends null for none
		return nil, jsonrpc.ID{}, false
	}
	who, ok := sr.clients.read(c.meta)
	if !ok || who.version != r.Header.Get("Mcp-Protocol-Version") {
		return nil, jsonrpc.ID{}, false
	}
	st := &statelessRequest{
		params: mcp.CallToolParamsRaw{Meta: who.meta, Name: name, Arguments: c.args},
		extra:  requestExtraOf(r),
	}
	st.req = mcp.CallToolRequest{Params: &st.params, Extra: &st.extra}
	st.call = relayedCall{req: &st.req, who: who}
	return st, jid, true
}

// statelessRequest is what the relay makes of a request it answers, in
// one allocation: the call, the CallToolRequest go-sdk would build with
// its params and extra, and the slot for the upstream's raw result.
type statelessRequest struct {
	call   relayedCall
	req    mcp.CallToolRequest
	params mcp.CallToolParamsRaw
	extra  mcp.RequestExtra
	slot   rawSlot
}

// statelessCall is what take reads of a request's bytes: raw JSON values,
// slices of the body; args and meta are nil when absent.
type statelessCall struct {
	id, name, args, meta []byte
}

// readStatelessCall reads body as a tools/call whose envelope has exactly
// the keys jsonrpc ("2.0"), id, method and params, and whose params have a
// name and no keys but arguments and _meta besides. It reads env, what the
// message check's walk found in body (walkedEnvelope). Keys are compared
// as go-sdk compares them, exactly; one written with escapes is left to
// go-sdk, as is anything not valid JSON or not starting with its object.
func readStatelessCall(body []byte, env *rawEnvelope) (statelessCall, bool) {
	if len(body) == 0 || body[0] != '{' {
		return statelessCall{}, false
	}
	env, ok := walkedEnvelope(body, env)
	if !ok || env.decodedKeys || env.topKeys != 4 || string(env.jsonrpc) != `"2.0"` ||
		string(env.method) != `"tools/call"` || env.id == nil || !objectOf(env.params) {
		return statelessCall{}, false
	}
	c := statelessCall{id: env.id, name: env.name, args: env.args, meta: env.meta}
	if len(c.name) < 2 || c.name[0] != '"' || env.paramsKeys != 1+present(c.args)+present(c.meta) {
		return statelessCall{}, false
	}
	return c, true
}

// present is 1 when a member's value is there, else 0.
func present(value []byte) int {
	if value == nil {
		return 0
	}
	return 1
}

// named reports whether the call's name is name.
func (c *statelessCall) named(name string) bool {
	if raw := c.name[1 : len(c.name)-1]; plainKey(raw) { // else decoding may change it
		return string(raw) == name
	}
	var decoded string
	return json.Unmarshal(c.name, &decoded) == nil && decoded == name
}

// objectOf reports whether raw is a JSON object.
func objectOf(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// onlyKeys reports whether m has the first of keys and no key outside
// them.
func onlyKeys[V any](m map[string]V, keys ...string) bool {
	if _, ok := m[keys[0]]; !ok {
		return false
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// relayedMethod is the method the relay may take r for, tools/call or
// tools/list, or "": it holds the relay to the headers go-sdk's stateless
// handler accepts: a same-origin JSON request that accepts both response
// kinds, in a revision the face speaks that takes no session, naming its
// method; no Last-Event-ID, which go-sdk refuses on a POST.
func (sr *statelessRelay) relayedMethod(r *http.Request) string {
	if !sdkTakesPost(r, sr.localhostCheck, sr.cop) || r.Header.Get("Content-Type") != "application/json" {
		return ""
	}
	v := r.Header.Get("Mcp-Protocol-Version")
	if v < newestVersion || !slices.Contains(protocolVersions, v) {
		return ""
	}
	switch m := r.Header.Get("Mcp-Method"); m {
	case "tools/call", "tools/list":
		return m
	}
	return ""
}

// rebound reports what go-sdk refuses as DNS rebinding: a request that
// reached a loopback address naming a host that is not loopback, both read
// as go-sdk reads them (sdkLoopback; weft's guard takes more spellings of
// a loopback name). A TCP address is read without printing it.
func rebound(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	if tcp, isTCP := local.(*net.TCPAddr); isTCP {
		if !tcp.AddrPort().Addr().IsLoopback() {
			return false
		}
	} else if !sdkLoopback(local.String()) {
		return false
	}
	return !sdkLoopback(r.Host)
}

// sdkLoopback is go-sdk's reading of an address as loopback (its
// internal util.IsLoopback): "localhost" exactly, or a loopback IP, with
// or without a port.
func sdkLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// serve makes the call and writes the result as go-sdk's stateless
// handler would: after its tools/call (callTool) and its handling of a
// 2026-07-28 request (a result type and the server's info in _meta).
func (sr *statelessRelay) serve(w http.ResponseWriter, r *http.Request, st *statelessRequest, jid jsonrpc.ID) {
	// The request's context ends when the client closes the POST, which
	// ends the call, as go-sdk's PropagateRequestCancellation does.
	ctx := context.WithValue(r.Context(), relayedKey{}, &st.call)
	res, err := sr.g.relayCall(withRawSlot(ctx, &st.slot), "tools/call", &st.req)
	var result json.RawMessage
	if err == nil {
		result, err = sr.g.statelessAnswer(&st.slot, res)
	}
	writeJSONResponse(w, jid, result, err)
}

// statelessAnswer is the result to send for res, the result the
// middleware returned: the upstream's bytes spliced (statelessRaw) when
// res is the slot's stub and they can be, else the typed result as
// go-sdk encodes it, decoded from those bytes as go-sdk's client session
// would have decoded them.
func (g *Gateway) statelessAnswer(slot *rawSlot, res mcp.Result) (json.RawMessage, error) {
	if raw, ok := slot.result(res); ok {
		if out, ok := g.statelessRaw(raw); ok {
			return out, nil
		}
		typed, err := slot.decode()
		if err != nil {
			return nil, err
		}
		res = typed
	}
	return g.statelessResult(res)
}

// writeJSONResponse writes a relayed call's answer, its result or err, as
// one application/json body framed as go-sdk's jsonrpc package frames it
// (which gives an error go-sdk's code); a result by writeResultAnswer,
// the same bytes without the reflection (jsonanswer.go).
func writeJSONResponse(w http.ResponseWriter, jid jsonrpc.ID, result json.RawMessage, err error) {
	if err == nil && writeResultAnswer(w, jid, result) {
		return
	}
	resp := &jsonrpc.Response{ID: jid, Result: result}
	if err != nil {
		resp = &jsonrpc.Response{ID: jid, Error: err}
	}
	writeJSONMessage(w, http.StatusOK, resp)
}

// writeJSONError answers a request go-sdk would refuse with status and a
// JSON-RPC error, as go-sdk does.
func writeJSONError(w http.ResponseWriter, status int, jid jsonrpc.ID, err *jsonrpc.Error) {
	writeJSONMessage(w, status, &jsonrpc.Response{ID: jid, Error: err})
}

func writeJSONMessage(w http.ResponseWriter, status int, resp *jsonrpc.Response) {
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		http.Error(w, "weft: cannot encode the response", http.StatusInternalServerError)
		return
	}
	setJSONHeaders(w)
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// setJSONHeaders sets the headers go-sdk gives its answer to a request:
// their canonical keys, with values shared by every answer (net/http only
// reads them; a full slice is never appended to in place).
func setJSONHeaders(w http.ResponseWriter) {
	h := w.Header()
	h["Cache-Control"] = noCacheValue
	h["Content-Type"] = jsonTypeValue
}

var (
	noCacheValue  = []string{"no-cache, no-transform"}
	jsonTypeValue = []string{"application/json"}
)

// statelessResult encodes a tool's result as go-sdk does for a 2026-07-28
// request: content is never null unless input is required, the result
// type says which, and _meta names the server unless it already does.
// The result type is not settable outside go-sdk, so it is written where
// CallToolResult.MarshalJSON puts it: after the other fields, before the
// input requests.
func (g *Gateway) statelessResult(res mcp.Result) (json.RawMessage, error) {
	r, ok := res.(*mcp.CallToolResult)
	if !ok || r == nil {
		return json.Marshal(res)
	}
	out := *r
	asks := out.InputRequests
	if asks != nil && (len(out.Content) > 0 || out.StructuredContent != nil) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "server bug: result has both content and inputRequests"}
	}
	kind := `"complete"`
	if asks != nil {
		kind = `"input_required"`
	} else if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	if _, named := out.Meta[mcp.MetaKeyServerInfo]; !named {
		meta := make(mcp.Meta, len(out.Meta)+1)
		for k, v := range out.Meta {
			meta[k] = v
		}
		meta[mcp.MetaKeyServerInfo] = g.info
		out.Meta = meta
	}
	out.InputRequests = nil
	data, err := json.Marshal(&out)
	if err != nil || len(data) < 2 {
		return data, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, len(data)+64))
	buf.Write(data[:len(data)-1])
	if len(data) > 2 {
		buf.WriteByte(',')
	}
	buf.WriteString(`"resultType":` + kind)
	if asks != nil {
		ir, err := json.Marshal(asks)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`,"inputRequests":`)
		buf.Write(ir)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// callerOfCall is callerOf for a tool call: a call with no session is a
// stateless request the relay answers, whose client names itself in _meta,
// as it names itself to go-sdk's temporary session.
func (g *Gateway) callerOfCall(req *mcp.CallToolRequest) hub.Caller {
	if req.Session != nil {
		return g.callerOf(req.Session)
	}
	c := hub.Caller{Face: "http", Agent: g.View().Name()}
	if ci := req.ClientInfo(); ci != nil {
		c.Client = ci.Name
	}
	return c
}

// noteHeaders records whether a tool's input schema binds an argument to
// an Mcp-Param header, which go-sdk checks against the request's headers;
// sync calls it under g.mu for each tool it (re)registers. An upstream
// tool's schema is the raw JSON weft keeps (upstream/schema.go), read as it
// is: encoding it only to search it cost a compaction of every schema per
// start.
func (g *Gateway) noteHeaders(name string, def *mcp.Tool) {
	schema, ok := def.InputSchema.(json.RawMessage)
	var err error
	if !ok {
		schema, err = json.Marshal(def.InputSchema)
	}
	if err != nil || bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		g.headerTools[name] = true
		return
	}
	delete(g.headerTools, name)
}

// publishHeaders forgets the tools no longer listed and publishes the rest
// for bindsHeaders; sync calls it under g.mu.
func (g *Gateway) publishHeaders(listed map[string]bool) {
	set := make(map[string]bool, len(g.headerTools))
	for name := range g.headerTools {
		if listed[name] {
			set[name] = true
		} else {
			delete(g.headerTools, name)
		}
	}
	g.headerBound.Store(&set)
}

// bindsHeaders reports whether the listed tool name binds arguments to
// headers (a call of it goes to go-sdk, which checks them).
func (g *Gateway) bindsHeaders(name string) bool {
	set := g.headerBound.Load()
	return set != nil && (*set)[name]
}

// sdkTakesPost holds both relays to the checks go-sdk makes of any POST:
// no rebound Host (when its localhost check is on), the same-origin check,
// an Accept of both response kinds, and no Last-Event-ID.
func sdkTakesPost(r *http.Request, localhostCheck bool, cop *http.CrossOriginProtection) bool {
	if localhostCheck && rebound(r) {
		return false
	}
	if cop != nil && cop.Check(r) != nil {
		return false
	}
	return acceptsBoth(r) && r.Header.Get("Last-Event-Id") == "" // canonical: Get does not build the key
}

// requestExtra is what go-sdk gives a handler of r: the verified token
// and the HTTP header.
func requestExtra(r *http.Request) *mcp.RequestExtra {
	extra := requestExtraOf(r)
	return &extra
}

// requestExtraOf is requestExtra as a value, for a struct that holds it.
func requestExtraOf(r *http.Request) mcp.RequestExtra {
	return mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
}

// acceptsBoth reports whether r accepts both response kinds, as go-sdk
// requires of a POST (its own check also takes wildcards, which the
// relays leave to it).
func acceptsBoth(r *http.Request) bool {
	accept := strings.Join(r.Header.Values("Accept"), ",")
	return strings.Contains(accept, "application/json") && strings.Contains(accept, "text/event-stream")
}
