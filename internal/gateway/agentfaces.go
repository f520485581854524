package gateway

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// AgentsPrefix starts the path of each agent's MCP endpoint:
// /agents/NAME/mcp.
const AgentsPrefix = "/agents/"

// AgentPath is the MCP endpoint of the named agent on the HTTP face.
func AgentPath(name string) string { return AgentsPrefix + name + Endpoint }

// Agents gives the HTTP face the faces of the configured agents; the
// daemon implements it, so that a config reload changes them.
type Agents interface {
	// Names lists the configured agents, sorted.
	Names() []string
	// Face returns the face of the named agent; ok is false when no such
	// agent is configured.
	Face(name string) (g *Gateway, ok bool)
	// Token returns the bearer token of the named agent ("" for none).
	Token(name string) string
	// TokenOwner returns the agent a bearer token belongs to.
	TokenOwner(token string) (name string, ok bool)
	// Default names the agent /mcp serves: "" for everything, or
	// config.NoDefaultAgent for none.
	Default() string
}

// noDefaultAgent mirrors config.NoDefaultAgent.
const noDefaultAgent = "none"

// agentHTTP holds the Streamable HTTP handler of a face serving an agent,
// made once: its sessions live in it.
type agentHTTP struct {
	once sync.Once
	h    http.Handler
}

// mcpHandler is the face's Streamable HTTP handler with o's limits.
func (g *Gateway) mcpHandler(o HTTPOptions) http.Handler {
	g.agentHTTP.once.Do(func() { g.agentHTTP.h = g.newMCPHandler(o) })
	return g.agentHTTP.h
}

type agentAuthKey struct{}

// agentAuthed reports whether the agents' own token check passed r.
func agentAuthed(r *http.Request) bool {
	ok, _ := r.Context().Value(agentAuthKey{}).(bool)
	return ok
}

// serveAgents routes /agents/NAME/mcp to the agent's face, and /mcp to the
// default agent's when [gateway] default_agent names one.
func (g *Gateway) serveAgents(o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("agent")
		if r.URL.Path == Endpoint {
			name = g.opts.Agents.Default()
			if name == noDefaultAgent {
				http.Error(w, "weft: /mcp serves no agent here (gateway.default_agent is \"none\"); connect to /agents/NAME/mcp", http.StatusNotFound)
				return
			}
		}
		face, ok := g.opts.Agents.Face(name)
		if !ok {
			http.Error(w, fmt.Sprintf("weft: no agent %q is configured; see `weft agents list`", name), http.StatusNotFound)
			return
		}
		face.mcpHandler(o).ServeHTTP(w, r)
	})
}

// agentTokens runs before the face's guard: a request carrying an agent's
// token is served only on that agent's path (anywhere else: 403), and an
// agent that has a token is reached only with it (or the face's own token).
// A request it passes carries the fact to the guard's token check.
func agentTokens(next http.Handler, agents Agents, adminToken string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, hasBearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		path := agentOfPath(r.URL.Path, agents)
		if owner, ok := agents.TokenOwner(bearer); hasBearer && ok {
			if path != owner {
				refuse(w, fmt.Sprintf("weft: this token belongs to agent %s; it is served only at %s", owner, AgentPath(owner)), http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentAuthKey{}, true)))
			return
		}
		if path != "" && agents.Token(path) != "" && !(adminToken != "" && hasBearer && equalToken(bearer, adminToken)) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="weft"`)
			refuse(w, fmt.Sprintf("weft: agent %s needs its bearer token (Authorization: Bearer …)", path), http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// agentOfPath names the agent a request's path serves: NAME for
// /agents/NAME/mcp, the default agent for /mcp, else "".
func agentOfPath(p string, agents Agents) string {
	if p == Endpoint {
		if d := agents.Default(); d != noDefaultAgent {
			return d
		}
		return ""
	}
	rest, ok := strings.CutPrefix(p, AgentsPrefix)
	if !ok {
		return ""
	}
	name, ok := strings.CutSuffix(rest, Endpoint)
	if !ok || strings.Contains(name, "/") {
		return ""
	}
	return name
}

func equalToken(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
