package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
)

// Endpoint is the path of the MCP endpoint on weft's HTTP listener.
const Endpoint = "/mcp"

// StatusPath is the admin endpoint `weft mcp list` reads live status from.
const StatusPath = "/admin/status"

// ServersPath prefixes the admin endpoint for one server's detail.
const ServersPath = "/admin/servers/"

// maxBody bounds a request body on the HTTP face.
const maxBody = 4 << 20

// Handler serves the MCP endpoint and the admin status endpoint, guarded by
// the options the gateway was created with.
func (g *Gateway) Handler() http.Handler { return g.HandlerWith(g.opts.HTTP) }

// HandlerWith is Handler with the HTTP face's guard options given by the
// caller, who knows the address actually bound.
func (g *Gateway) HandlerWith(o HTTPOptions) http.Handler {
	o = o.withDefaults()
	mux := http.NewServeMux()
	if g.opts.Agents != nil {
		agents := g.serveAgents(o) // agentfaces.go
		mux.Handle(AgentsPrefix+"{agent}"+Endpoint, agents)
		mux.Handle(Endpoint, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if g.opts.Agents.Default() == "" {
				g.mcpHandler(o).ServeHTTP(w, r)
				return
			}
			agents.ServeHTTP(w, r)
		}))
	} else {
		mux.Handle(Endpoint, g.newMCPHandler(o))
	}
	mux.HandleFunc("GET "+StatusPath, g.serveStatus)
	mux.HandleFunc("GET "+AgentsAdminPath, g.serveAgentList) // agentsadmin.go
	mux.HandleFunc("GET "+AgentsAdminPath+"/{name}", g.serveAgentDetail)
	mux.HandleFunc("GET "+ServersPath+"{name}", g.serveDetail)
	mux.HandleFunc("POST "+AdminServersPath, g.serveAddServer)
	mux.HandleFunc("DELETE "+ServersPath+"{name}", g.serveRemoveServer)
	g.mountObserve(mux) // health.go
	if auth := o.Auth; auth != nil {
		o.Token = "" // checked by auth, with the OAuth tokens
		guarded := guard(mux, o)
		authed := g.withAgentTokens(auth(g.agentIdentity(guarded, o.AgentOf)), guarded) // agentidentity.go
		// Health probes carry no token; everything else, the dashboard
		// included, needs a token the auth accepts.
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isProbe(r) {
				guarded.ServeHTTP(w, r)
				return
			}
			authed.ServeHTTP(w, r)
		})
	}
	if g.opts.Agents != nil {
		return agentTokens(guard(mux, o), g.opts.Agents, o.Token)
	}
	return guard(mux, o)
}

// newMCPHandler is the face's Streamable HTTP endpoint with o's limits.
func (g *Gateway) newMCPHandler(o HTTPOptions) http.Handler {
	opts := &mcp.StreamableHTTPOptions{
		Logger:                g.quietLogger,
		SessionTimeout:        o.SessionIdleTimeout,
		CrossOriginProtection: http.NewCrossOriginProtection(),
		MaxRequestBodyBytes:   max(o.MaxBodyBytes, maxBody),
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, opts)
	return g.byRevision(capSessions(g.server, o.MaxSessions, newRelay(g, h, opts)), opts)
}

// Status is the admin endpoint's answer.
type Status struct {
	Servers []hub.ServerStatus `json:"servers"`
	Listed  []string           `json:"listed_tools"`
	Hidden  []string           `json:"search_only_tools"`
	Clashes []string           `json:"clashes,omitempty"`
	// Exposed counts each server's tools in the catalog: what allowed_tools,
	// denied_tools and pinning leave of its ServerStatus.Tools.
	Exposed map[string]int `json:"exposed_tools"`
}

// StatusOf is the status of h's servers and catalog, as the admin endpoint
// answers it and `weft mcp list` prints it.
func StatusOf(h *hub.Hub) Status {
	cat := h.Catalog()
	st := catalogStatusOf(cat)
	st.Servers = h.List()
	return st
}

// catalogStatusOf is the catalog's part of the status.
func catalogStatusOf(cat *hub.Catalog) Status {
	st := Status{Clashes: cat.Clashes, Listed: make([]string, 0, len(cat.Tools)), Hidden: []string{}, Exposed: map[string]int{}}
	st.count(cat.Tools)
	return st
}

// count records tools as listed or search-only, and each server's share.
func (st *Status) count(tools []*hub.Tool) {
	for _, t := range tools {
		st.Exposed[t.Server]++
		if t.Listed {
			st.Listed = append(st.Listed, t.Name)
		} else {
			st.Hidden = append(st.Hidden, t.Name)
		}
	}
}

// serveStatus answers StatusOf, with each per-user server's users. The
// catalog's part is encoded once per catalog (statusjson.go).
func (g *Gateway) serveStatus(w http.ResponseWriter, _ *http.Request) {
	cat := g.hub.Catalog()
	servers := g.hub.List()
	if g.opts.PerUser != nil {
		users := g.opts.PerUser()
		for i := range servers {
			servers[i].PerUser = users[servers[i].Name]
		}
	}
	body, err := g.statusJSON(cat, servers)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	g.setConfigETag(w)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (g *Gateway) serveDetail(w http.ResponseWriter, r *http.Request) {
	d, err := g.hub.Detail(r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	if g.opts.PerUser != nil {
		d.PerUser = g.opts.PerUser()[d.Name]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(d)
}

// ServeStdio serves one client over stdin/stdout until it disconnects or ctx
// ends.
func (g *Gateway) ServeStdio(ctx context.Context) error {
	limit := g.opts.MaxMessageBytes
	if limit <= 0 {
		limit = config.DefaultMaxMessageBytes
	}
	return g.serveIO(ctx, os.Stdin, os.Stdout, limit)
}

// serveIO serves one client over a pair of streams, answering refused
// lines itself (stdio.go).
func (g *Gateway) serveIO(ctx context.Context, in io.ReadCloser, out io.WriteCloser, limit int) error {
	w := &lockedWriter{w: out}
	ss, err := g.server.Connect(ctx, &mcp.IOTransport{
		Reader:        newStdinFilter(in, limit, w, g.quietLogger),
		Writer:        w,
		MaxLineLength: limit + 1, // lines are bounded (and refused) before the SDK sees them
	}, nil)
	if err != nil {
		return err
	}
	// Recorded so that callerOf can tell this session from a stateless
	// HTTP request's, which has no id either.
	g.stdioSessions.Store(ss, true)
	defer g.stdioSessions.Delete(ss)
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-ended
		return ctx.Err()
	case err := <-ended:
		return err
	}
}
