package gateway

import (
	"fmt"
	"net/http"
	"strings"
)

// AgentOfRequest names the agent the verified identity of a request acts
// as. mapped is false when identities select no agents here (no mapping
// configured, or the face's own static token): the request goes on as it
// is. With mapped true, agent "" means the identity acts as no agent; err
// means its token is ambiguous.
type AgentOfRequest func(r *http.Request) (agent string, mapped bool, err error)

// agentIdentity runs after HTTPOptions.Auth verified the request and before
// the face's guard. A token that acts as agent A is served only as A: /mcp
// serves A's view, /agents/A/mcp serves it too, and every other path
// (another agent's, the admin API, the dashboard) answers 403. A token that
// acts as no agent reaches no agent's path (403) but keeps /mcp and the
// rest.
func (g *Gateway) agentIdentity(next http.Handler, agentOf AgentOfRequest) http.Handler {
	if agentOf == nil || g.opts.Agents == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent, mapped, err := agentOf(r)
		if !mapped {
			next.ServeHTTP(w, r)
			return
		}
		if err != nil {
			refuse(w, "weft: "+err.Error(), http.StatusForbidden)
			return
		}
		path := agentPathName(r.URL.Path)
		switch {
		case agent == "" && path != "":
			refuse(w, fmt.Sprintf("weft: this token acts as no agent, so it cannot reach agent %s; map its identity to %s in gateway.auth.agents", path, path), http.StatusForbidden)
		case agent == "":
			next.ServeHTTP(w, r)
		case r.URL.Path == Endpoint:
			next.ServeHTTP(w, withPath(r, AgentPath(agent)))
		case path != agent:
			refuse(w, fmt.Sprintf("weft: this token acts as agent %s; it is served only at %s (or %s)", agent, AgentPath(agent), Endpoint), http.StatusForbidden)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// agentPathName is NAME for /agents/NAME/mcp, else "".
func agentPathName(p string) string {
	if p == Endpoint {
		return ""
	}
	return agentOfPath(p, nil)
}

// withPath is r for another path on the same face.
func withPath(r *http.Request, path string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = path, ""
	r2.URL = &u
	return r2
}

// withAgentTokens lets the agents' own static tokens ([agents.NAME] token)
// work beside [gateway.auth]'s JWTs: a request carrying one is served as it
// is without [gateway.auth] (only on its agent's path, 403 elsewhere);
// every other request goes to authed.
func (g *Gateway) withAgentTokens(authed, guarded http.Handler) http.Handler {
	agents := g.opts.Agents
	if agents == nil {
		return authed
	}
	byToken := agentTokens(guarded, agents, "")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, agentToken := agents.TokenOwner(bearer); ok && agentToken {
			byToken.ServeHTTP(w, r)
			return
		}
		authed.ServeHTTP(w, r)
	})
}
