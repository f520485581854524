package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"time"

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
	mux := http.NewServeMux()
	opts := &mcp.StreamableHTTPOptions{
		Logger:                g.logger,
		SessionTimeout:        30 * time.Minute,
		CrossOriginProtection: http.NewCrossOriginProtection(),
		MaxRequestBodyBytes:   max(o.MaxBodyBytes, maxBody),
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, opts)
	mux.Handle(Endpoint, g.byRevision(mcpHandler, opts))
	mux.HandleFunc("GET "+StatusPath, g.serveStatus)
	mux.HandleFunc("GET "+ServersPath+"{name}", g.serveDetail)
	mux.HandleFunc("POST "+AdminServersPath, g.serveAddServer)
	mux.HandleFunc("DELETE "+ServersPath+"{name}", g.serveRemoveServer)
	return guard(mux, o)
}

// Status is the admin endpoint's answer.
type Status struct {
	Servers []hub.ServerStatus `json:"servers"`
	Listed  []string           `json:"listed_tools"`
	Hidden  []string           `json:"search_only_tools"`
	Clashes []string           `json:"clashes,omitempty"`
}

func (g *Gateway) serveStatus(w http.ResponseWriter, _ *http.Request) {
	cat := g.hub.Catalog()
	st := Status{Servers: g.hub.List(), Clashes: cat.Clashes, Listed: []string{}, Hidden: []string{}}
	for _, t := range cat.Tools {
		if t.Listed {
			st.Listed = append(st.Listed, t.Name)
		} else {
			st.Hidden = append(st.Hidden, t.Name)
		}
	}
	g.setConfigETag(w)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(st)
}

func (g *Gateway) serveDetail(w http.ResponseWriter, r *http.Request) {
	d, err := g.hub.Detail(r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
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
	return g.server.Run(ctx, &mcp.IOTransport{
		Reader:        stdinGuard(os.Stdin, limit, g.logger),
		Writer:        os.Stdout,
		MaxLineLength: limit,
	})
}
