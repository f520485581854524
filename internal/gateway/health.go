package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// Health endpoints: liveness and readiness, for Kubernetes probes, systemd
// and load balancers. They answer without the bearer token (probes rarely
// carry one and they reveal nothing) but behind the Host and Origin checks.
const (
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
)

// HealthOptions decide when /readyz answers ready.
type HealthOptions struct {
	// Applied reports whether the config has been applied; nil: always.
	Applied func() bool
	// Requires names the servers that must be active; nil: none. It is a
	// func so that a config reload can change the list.
	Requires func() []string
}

// Route is an extra endpoint served on the HTTP face, behind its guards
// (metrics, dashboard).
type Route struct {
	Pattern string
	Handler http.Handler
}

// mountObserve adds the health endpoints and the extra routes to mux.
func (g *Gateway) mountObserve(mux *http.ServeMux) {
	mux.HandleFunc("GET "+HealthzPath, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET "+ReadyzPath, g.serveReady)
	for _, r := range g.opts.Routes {
		mux.Handle(r.Pattern, r.Handler)
	}
}

// UIPrefix is where the dashboard lives; it checks the token itself
// (browsers send a cookie, not a bearer header).
const UIPrefix = "/ui"

// ownAuth reports whether r skips the bearer check: a health probe, which
// needs no token, or a dashboard request, which checks its own.
func ownAuth(r *http.Request) bool {
	if r.URL.Path == UIPrefix || strings.HasPrefix(r.URL.Path, UIPrefix+"/") {
		return true
	}
	return isProbe(r)
}

// isProbe reports whether r is a liveness or readiness probe.
func isProbe(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		(r.URL.Path == HealthzPath || r.URL.Path == ReadyzPath)
}

// ReadyAllQuery, as /readyz?all, requires every configured server besides
// those in ready_requires: what a script that starts weft and then uses
// all of its tools waits for, without reading the whole admin status. A
// server that needs a login counts (its tools are not listed), and its
// reason names the login that fixes it.
const ReadyAllQuery = "all"

// serveReady answers 200 once the config is applied and every required
// server serves (active, its tools listed), else 503 with the reasons.
func (g *Gateway) serveReady(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if reasons := g.notReady(r.URL.Query().Has(ReadyAllQuery)); len(reasons) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		if len(reasons) > maxReasons { // a hundred servers starting: the first few say enough
			reasons = append(reasons[:maxReasons], fmt.Sprintf("%d more", len(reasons)-maxReasons))
		}
		fmt.Fprintln(w, "not ready: "+strings.Join(reasons, "; "))
		return
	}
	fmt.Fprintln(w, "ready")
}

// maxReasons bounds the reasons a not-ready answer lists.
const maxReasons = 10

// notReady lists why weft is not ready yet; all requires every configured
// server besides those in ready_requires.
func (g *Gateway) notReady(all bool) []string {
	h := g.opts.Health
	var out []string
	if h.Applied != nil && !h.Applied() {
		out = append(out, "the config is not applied yet")
	}
	var requires []string
	if h.Requires != nil {
		requires = h.Requires()
	}
	if all {
		for _, name := range g.hub.Names() {
			if !slices.Contains(requires, name) {
				requires = append(requires, name)
			}
		}
	}
	for _, name := range requires {
		st, serving, err := g.hub.Serving(name)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("server %s is not configured", name))
		case st == hub.StatusNeedsLogin: // only a login brings it: say which
			out = append(out, fmt.Sprintf("server %s needs login: run `weft mcp login %s`", name, name))
		case st != hub.StatusActive:
			out = append(out, fmt.Sprintf("server %s is %s", name, st))
		case !serving:
			out = append(out, fmt.Sprintf("server %s is active, its tools not listed yet", name))
		}
	}
	return out
}

// callerOf names the face, session and client of a request, for metrics
// and the audit log. A stdio session is one serveIO recorded; every other
// session came over HTTP (a stateless 2026-07-28 request's has no id).
func (g *Gateway) callerOf(ss *mcp.ServerSession) hub.Caller {
	c := hub.Caller{Face: "stdio", Agent: g.View().Name()} // the face's agent, "" for /mcp
	if ss == nil {
		return c
	}
	if _, stdio := g.stdioSessions.Load(ss); !stdio {
		c.Face, c.Session = "http", ss.ID()
	}
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		c.Client = ip.ClientInfo.Name
	}
	return c
}

// SessionsByFace counts the client sessions connected to the face, by
// face: HTTP sessions have an id, a stdio session has none.
func (g *Gateway) SessionsByFace() map[string]int {
	out := map[string]int{}
	for ss := range g.server.Sessions() {
		out[g.callerOf(ss).Face]++
	}
	return out
}

// SessionList names the client sessions connected to the face.
func (g *Gateway) SessionList() []hub.Caller {
	var out []hub.Caller
	for ss := range g.server.Sessions() {
		out = append(out, g.callerOf(ss))
	}
	return out
}
