package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader carries the Streamable HTTP session id.
const sessionHeader = "Mcp-Session-Id"

// sessionCap bounds the Streamable HTTP sessions of the face. Each costs
// memory and a goroutine until it ends or idles out; a request that would
// open one past the cap first closes the session idle the longest, and is
// refused (503) only when every session has a request in flight. Two
// initializations racing at the cap may overshoot it by one each.
type sessionCap struct {
	server *mcp.Server
	max    int
	next   http.Handler

	mu   sync.Mutex
	uses map[string]*sessionUse // by session id; guarded by mu
}

type sessionUse struct {
	last time.Time
	busy int // requests in flight
}

func capSessions(server *mcp.Server, max int, next http.Handler) http.Handler {
	return &sessionCap{server: server, max: max, next: next, uses: map[string]*sessionUse{}}
}

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		if r.Method == http.MethodPost && needsSession(w, r) {
			return
		}
		if r.Method == http.MethodPost && !c.makeRoom() {
			w.Header().Set("Connection", "close")
			http.Error(w, "weft: too many MCP sessions, all of them busy; retry later or raise gateway.max_sessions", http.StatusServiceUnavailable)
			return
		}
		c.next.ServeHTTP(w, r)
		if id = w.Header().Get(sessionHeader); id != "" {
			c.enter(id)
			c.leave(id)
		}
		return
	}
	c.enter(id)
	defer c.leave(id)
	c.next.ServeHTTP(w, r)
}

func (c *sessionCap) enter(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.uses[id]
	if u == nil {
		u = &sessionUse{}
		c.uses[id] = u
	}
	u.busy++
	u.last = time.Now()
}

func (c *sessionCap) leave(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.uses[id]; u != nil {
		u.busy--
		u.last = time.Now()
	}
}

// makeRoom reports whether a new session may open, closing the session
// idle the longest when the cap is reached.
func (c *sessionCap) makeRoom() bool {
	c.mu.Lock()
	live := map[string]*mcp.ServerSession{}
	for ss := range c.server.Sessions() {
		if id := ss.ID(); id != "" {
			live[id] = ss
		}
	}
	for id := range c.uses {
		if live[id] == nil {
			delete(c.uses, id) // ended or timed out
		}
	}
	if len(live) < c.max {
		c.mu.Unlock()
		return true
	}
	var victim *mcp.ServerSession
	var oldest time.Time
	for id, ss := range live {
		u := c.uses[id]
		if u != nil && u.busy > 0 {
			continue
		}
		var last time.Time
		if u != nil {
			last = u.last
		}
		if victim == nil || last.Before(oldest) {
			victim, oldest = ss, last
		}
	}
	if victim != nil {
		delete(c.uses, victim.ID())
	}
	c.mu.Unlock()
	if victim == nil {
		return false
	}
	_ = victim.Close()
	return true
}

// sessionless are the methods a client may send before it has a session.
var sessionless = map[string]bool{"initialize": true, "server/discover": true}

// needsSession answers 400 (with a JSON-RPC error carrying the request's
// id) for a POST without Mcp-Session-Id that is not an initialization,
// and reports whether it did. The SDK would open a session for it and
// answer 200 with an error code 0. Requests declaring a protocol revision
// newer than the face's sessions are left to the handler: they need no
// session.
func needsSession(w http.ResponseWriter, r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && (v >= newestVersion || !slices.Contains(protocolVersions, v)) {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var head struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
	}
	if err != nil || json.Unmarshal(body, &head) != nil || sessionless[head.Method] {
		return false
	}
	id, _ := jsonrpc.MakeID(head.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(errorResponse(&Refusal{jsonrpc.CodeInvalidRequest,
		"Mcp-Session-Id header missing: send initialize first, then the session id it returned with every request"}, id))
	return true
}
