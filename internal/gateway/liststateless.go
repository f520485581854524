package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's stateless handler answers each 2026-07-28 tools/list by
// building a whole ServerSession, then encoding the page twice (the result,
// compacting every tool's raw schema, then the envelope around it,
// compacting the whole page again) into an SSE stream. For 10,000 tools
// that was about 70 ms of the face's CPU per walk of the list, while a
// go-sdk client listed the catalog (docs/guides/performance.md, "Fan-in:
// the client's list through weft"). The pages are kept as listpages.go
// keeps a session's: the first request for a revision and cursor after a
// change of the face's tools goes to go-sdk, and its result is kept; later
// ones are answered from it as application/json, through the face's
// receiving middleware. The result of a stateless tools/list names no
// client (the tools, the next cursor, the result type, go-sdk's cache hints
// and the server's info), so one page serves every client of a revision.

// list answers a stateless plain tools/list from the face's kept page, or
// passes it to go-sdk and keeps go-sdk's page. It reports false when the
// request is not one it takes; the caller passes it to go-sdk as before.
func (sr *statelessRelay) list(w http.ResponseWriter, r *http.Request, body []byte, env *rawEnvelope) bool {
	rev := r.Header.Get("Mcp-Protocol-Version")
	params, jid, ok := readStatelessList(body, env)
	if !ok {
		return false
	}
	who, ok := sr.clients.read(params.Meta)
	if !ok || who.version != rev {
		return false
	}
	pages, key := &sr.g.pages, pageKey{rev: rev, cursor: params.Cursor}
	if result, hit := pages.get(key); hit {
		req := &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{Meta: who.meta, Cursor: params.Cursor}, Extra: requestExtra(r)}
		sr.g.serveKept(w, r, req, jid, result)
		return true
	}
	pages.capture(w, key, jid, func(cw http.ResponseWriter) { sr.next.ServeHTTP(cw, r) })
	return true
}

// statelessListParams are a stateless tools/list's params: its _meta and
// an optional cursor, nothing else.
type statelessListParams struct {
	Meta   json.RawMessage `json:"_meta"`
	Cursor string          `json:"cursor"`
}

// readStatelessList reads body as a tools/list whose envelope has exactly
// the keys jsonrpc ("2.0"), id, method and params, and whose params have a
// _meta and at most a cursor besides, each key written as itself (see
// readStatelessCall).
func readStatelessList(body []byte, env *rawEnvelope) (statelessListParams, jsonrpc.ID, bool) {
	var p statelessListParams
	if len(body) == 0 || body[0] != '{' {
		return p, jsonrpc.ID{}, false
	}
	env, ok := walkedEnvelope(body, env)
	if !ok || env.decodedKeys || env.topKeys != 4 || string(env.jsonrpc) != `"2.0"` ||
		string(env.method) != `"tools/list"` || env.id == nil || !objectOf(env.params) ||
		env.meta == nil || env.name != nil || env.args != nil || env.paramsKeys > 2 {
		return p, jsonrpc.ID{}, false
	}
	jid, ok := relayID(env.id)
	if !ok {
		return p, jsonrpc.ID{}, false
	}
	if env.paramsKeys == 2 {
		var keys map[string]json.RawMessage
		if json.Unmarshal(env.params, &keys) != nil || !onlyKeys(keys, "_meta", "cursor") {
			return p, jsonrpc.ID{}, false
		}
		if json.Unmarshal(keys["cursor"], &p.Cursor) != nil {
			return p, jsonrpc.ID{}, false
		}
	}
	p.Meta = env.meta
	return p, jid, true
}
