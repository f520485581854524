package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk encodes a tools/list page anew for every request: it marshals the
// result, compacting each tool's raw input schema, then the envelope around
// it, compacting the whole page again. For 10,000 tools that was most of
// the face's cost per list (docs/guides/performance.md, "Listing"). A page
// changes only when the face's tools do, so the relay keeps each page go-sdk
// answered a stateful session, by its cursor, until the face's tools next
// change, and answers the same request from it as application/json.
//
// A 2026-07-28 request has no session: go-sdk's stateless handler answers
// it, with a result that also carries the result type, cache hints and the
// server's info. Those pages are kept apart, by revision and cursor
// (liststateless.go).
//
// go-sdk stays the source of truth: a kept page is a copy of the result
// go-sdk wrote for that cursor, so it lists the same tools (built-ins, the
// agent's view, no search-only tools) in the same order and page size.
// The cursors in it are go-sdk's own ("the tools after name X"), which
// go-sdk understands whichever of the two answers a session's next page;
// no cursor go-sdk did not make ever reaches it.

// maxKeptPageBytes bounds the pages kept per face: a client can make up any
// number of cursors go-sdk accepts.
const maxKeptPageBytes = 64 << 20

// listPages are the face's kept tools/list results.
type listPages struct {
	// gen counts the changes of the face's tools; it is odd while sync
	// changes them. A page is kept and served only for the generation
	// go-sdk answered it in.
	gen atomic.Uint64

	mu    sync.Mutex
	at    uint64             // the generation of pages; guarded by mu
	pages map[pageKey][]byte // results by revision and cursor; guarded by mu
	size  int                // bytes in pages, cursors and results; guarded by mu

	// hint is the largest response go-sdk wrote for a page so far: the
	// capture of the next starts at that size instead of doubling up to it.
	hint atomic.Int64

	chainOnce sync.Once
	chain     mcp.MethodHandler // the face's receiving middleware around a kept page
}

// pageKey names a kept page: the revision of a stateless request ("" for a
// session's) and the cursor.
type pageKey struct{ rev, cursor string }

// changing and changed bracket a change of the face's tools (sync).
func (p *listPages) changing() { p.gen.Add(1) }
func (p *listPages) changed()  { p.gen.Add(1) }

// get returns the kept result for key in the current generation.
func (p *listPages) get(key pageKey) ([]byte, bool) {
	gen := p.gen.Load()
	if gen&1 == 1 {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at != gen {
		return nil, false
	}
	res, ok := p.pages[key]
	return res, ok
}

// put keeps result for key, answered by go-sdk in generation at, if the
// face's tools have not changed since.
func (p *listPages) put(at uint64, key pageKey, result []byte) {
	if at&1 == 1 || p.gen.Load() != at {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.at != at || p.pages == nil {
		p.at, p.pages, p.size = at, map[pageKey][]byte{}, 0
	}
	kept := len(key.rev) + len(key.cursor) + len(result) // a cursor can be as large as a body
	if _, ok := p.pages[key]; ok || p.size+kept > maxKeptPageBytes {
		return
	}
	p.pages[key] = result
	p.size += kept
}

type keptPageKey struct{}

// listChain is the face's receiving middleware (tracing, users) around a
// handler that answers the kept page, which the context carries as a stub
// result: the relay writes the page's bytes when the stub comes back.
func (g *Gateway) listChain() mcp.MethodHandler {
	g.pages.chainOnce.Do(func() {
		g.pages.chain = g.receiving(func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
			return ctx.Value(keptPageKey{}).(*mcp.ListToolsResult), nil
		})
	})
	return g.pages.chain
}

// list answers a stateful session's plain tools/list from the face's kept
// page, or passes it to go-sdk and keeps go-sdk's page. It reports false
// when the request is not one it takes; the caller goes on as before.
func (rl *relay) list(w http.ResponseWriter, r *http.Request, s *relaySession, env *envelope) bool {
	cursor, jid, ok := rl.plainList(r, s, env)
	if !ok {
		return false
	}
	pages, key := &rl.g.pages, pageKey{cursor: cursor}
	if result, hit := pages.get(key); hit && !rl.sdkDue(s) {
		req := &mcp.ListToolsRequest{Session: s.ss, Params: &mcp.ListToolsParams{Cursor: cursor}, Extra: requestExtra(r)}
		rl.g.serveKept(w, r, req, jid, result)
		return true
	}
	pages.capture(w, key, jid, func(cw http.ResponseWriter) { rl.pass(cw, r, s.ss.ID(), s) })
	return true
}

// capture has go-sdk answer a tools/list through pass, writing to w, and
// keeps the result it wrote to jid as key's page.
func (p *listPages) capture(w http.ResponseWriter, key pageKey, jid jsonrpc.ID, pass func(http.ResponseWriter)) {
	at := p.gen.Load()
	cw := &pageCapture{ResponseWriter: w}
	cw.buf.Grow(int(min(p.hint.Load(), maxKeptPageBytes)))
	pass(cw)
	if n := int64(cw.buf.Len()); n > p.hint.Load() {
		p.hint.Store(n) // a race between two captures only leaves a smaller hint
	}
	if result := cw.result(jid); result != nil {
		p.put(at, key, result)
	}
}

// plainList reports whether env is a tools/list the relay may take: a
// legacy-revision session's request whose params are at most a cursor (a
// _meta goes to go-sdk, which may read it), with headers go-sdk accepts.
func (rl *relay) plainList(r *http.Request, s *relaySession, env *envelope) (string, jsonrpc.ID, bool) {
	if env.Method != "tools/list" || env.JSONRPC != "2.0" {
		return "", jsonrpc.ID{}, false
	}
	jid, ok := relayID(env.ID)
	if !ok || !rl.headersOK(r) {
		return "", jsonrpc.ID{}, false
	}
	if ip := s.ss.InitializeParams(); ip == nil || ip.ProtocolVersion >= newestVersion {
		return "", jsonrpc.ID{}, false
	}
	cursor, ok := listCursor(env.Params)
	return cursor, jid, ok
}

// listCursor reads params that hold nothing but a cursor.
func listCursor(params json.RawMessage) (string, bool) {
	if len(params) == 0 {
		return "", true
	}
	var keys map[string]json.RawMessage
	if params[0] != '{' || json.Unmarshal(params, &keys) != nil {
		return "", false
	}
	raw, has := keys["cursor"]
	if len(keys) > 1 || (len(keys) == 1 && !has) {
		return "", false
	}
	var cursor string
	if has && json.Unmarshal(raw, &cursor) != nil {
		return "", false
	}
	return cursor, true
}

// serveKept runs req through the face's receiving middleware and writes
// the kept page in go-sdk's envelope.
func (g *Gateway) serveKept(w http.ResponseWriter, r *http.Request, req *mcp.ListToolsRequest, jid jsonrpc.ID, result []byte) {
	stub := &mcp.ListToolsResult{}
	res, err := g.listChain()(context.WithValue(r.Context(), keptPageKey{}, stub), "tools/list", req)
	resp := &jsonrpc.Response{ID: jid, Result: json.RawMessage("0")}
	switch {
	case err != nil:
		resp.Result, resp.Error = nil, err
	case res != mcp.Result(stub): // a middleware answered otherwise
		if resp.Result, err = json.Marshal(res); err != nil {
			resp.Result, resp.Error = nil, err
		}
	}
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		http.Error(w, "weft: cannot encode the response", http.StatusInternalServerError)
		return
	}
	head, splice := bytes.CutSuffix(data, []byte(`"result":0}`))
	if !splice || res != mcp.Result(stub) {
		writeJSON(w, data)
		return
	}
	// The kept result goes into go-sdk's envelope as it is: marshalling it
	// as a json.RawMessage would compact the whole page again.
	setJSONHeaders(w)
	w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(`"result":`)+len(result)+1))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(head)
	_, _ = w.Write([]byte(`"result":`))
	_, _ = w.Write(result)
	_, _ = w.Write([]byte("}"))
}

func writeJSON(w http.ResponseWriter, data []byte) {
	setJSONHeaders(w)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// pageCapture passes go-sdk's response through and keeps a copy of it, up
// to maxKeptPageBytes.
type pageCapture struct {
	http.ResponseWriter
	code int
	buf  bytes.Buffer
	over bool
}

func (c *pageCapture) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *pageCapture) Write(b []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	if !c.over {
		if c.buf.Len()+len(b) > maxKeptPageBytes {
			c.over = true
			c.buf = bytes.Buffer{}
		} else {
			c.buf.Write(b)
		}
	}
	return c.ResponseWriter.Write(b)
}

// Flush keeps go-sdk's SSE stream flowing.
func (c *pageCapture) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *pageCapture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// result is the result of go-sdk's successful response to jid, read from
// its SSE stream or JSON body; nil when there is none.
func (c *pageCapture) result(jid jsonrpc.ID) []byte {
	if c.over || c.code != http.StatusOK {
		return nil
	}
	body := c.buf.Bytes()
	if !strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream") {
		return c.kept(responseResult(body, jid))
	}
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if res := responseResult(data, jid); res != nil {
				return c.kept(res)
			}
		}
	}
	return nil
}

// kept is res to keep: the capture's buffer itself when res fills at
// least half of it, else a copy, so that what a kept page holds stays
// within twice what listPages counts for it.
func (c *pageCapture) kept(res []byte) []byte {
	if res == nil || 2*len(res) >= c.buf.Cap() {
		return res
	}
	return bytes.Clone(res)
}

// responseResult decodes data as go-sdk's response to jid and returns its
// result; nil for anything else. A response framed as go-sdk frames one is
// cut from its envelope without decoding the page, and the result shares
// data (the capture's own buffer, not used after); otherwise it is a copy.
func responseResult(data []byte, jid jsonrpc.ID) []byte {
	if result, ok := framedResult(data, jid); ok {
		return result
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID != jid || resp.Error != nil || len(resp.Result) == 0 {
		return nil
	}
	return bytes.Clone(resp.Result)
}

// framedResult reads data as go-sdk's jsonrpc package frames a successful
// response to jid: the head EncodeMessage writes up to "result":, the
// result object, then the closing brace. go-sdk writes an error after the
// result (wireCombined); a key "error" anywhere in what follows the head
// (`,"` never occurs inside a JSON string) leaves data to the decode. The
// page is not validated again: it is what go-sdk just encoded (json.Valid
// of a 230 KB page costs as much as decoding it).
func framedResult(data []byte, jid jsonrpc.ID) ([]byte, bool) {
	frame, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jid, Result: json.RawMessage("0")})
	if err != nil {
		return nil, false
	}
	head, ok := bytes.CutSuffix(frame, []byte("0}"))
	if !ok {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(data, head)
	if !ok {
		return nil, false
	}
	result, ok := bytes.CutSuffix(bytes.TrimRight(rest, " \t\r\n"), []byte("}"))
	if !ok || !objectOf(result) || bytes.Contains(result, []byte(`,"error":`)) {
		return nil, false
	}
	return result, true
}
