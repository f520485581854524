// Package ui is weft's dashboard: a few pages embedded in the binary
// (servers, tools, live calls, plans, agents, sessions), fed by a JSON snapshot and
// kept current by server-sent events. Actions (reconnect, disable, enable,
// remove, approve) go through an Actions implementation that uses the same
// change path as the CLI.
package ui

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"

	"github.com/weft-dev/weft/internal/hub"
)

// Path is where the dashboard is served.
const Path = "/ui/"

// cookieName holds the token once exchanged; HttpOnly, so page scripts
// never see it, and SameSite=Strict, so other sites cannot send it.
const cookieName = "weft_ui"

//go:embed static
var static embed.FS

// Source is the hub as the dashboard reads it; *hub.Hub is one.
type Source interface {
	List() []hub.ServerStatus
	Catalog() *hub.Catalog
}

// Actions change weft from the dashboard. Implementations use the same
// path as the CLI (config edits that the running weft applies).
type Actions interface {
	// Server runs "reconnect", "disable", "enable" or "remove" on a server.
	Server(ctx context.Context, name, action string) error
	// Approve accepts the changed definition of a withheld tool.
	Approve(ctx context.Context, server, tool string) error
	// Withheld lists tools withheld because their definition changed.
	Withheld() []Withheld
}

// Withheld is a tool waiting for approval.
type Withheld struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// Plan is a stored plan as the dashboard draws it.
type Plan struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Steps []Step `json:"steps"`
}

// Step is a plan step: a node of the plan's graph.
type Step struct {
	Index     int      `json:"index"`
	Title     string   `json:"title"`
	Tools     []string `json:"tools"`
	DependsOn []int    `json:"depends_on"`
}

// Options configure the dashboard.
type Options struct {
	Hub     Source
	Live    *Live
	Actions Actions // nil: actions are refused
	// Plans lists stored plans (nil: none).
	Plans func() ([]Plan, error)
	// Sessions lists the connected client sessions (nil: none).
	Sessions func() []hub.Caller
	// Agents lists the agents and the tools each sees (nil: none).
	Agents Agents
	// Token, when set, is required: as a cookie set by the login form or
	// by /ui/?token=…, or as a bearer token.
	Token string
}

// Handler serves the dashboard under Path. The face's guards (Host,
// Origin, JSON-only POST bodies) apply before it; it checks the token
// itself, since browsers send a cookie, not a bearer header.
func Handler(o Options) http.Handler {
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	mux.Handle("GET "+Path+"static/", http.StripPrefix(Path+"static/", http.FileServerFS(files)))
	mux.HandleFunc("GET "+Path+"login", func(w http.ResponseWriter, r *http.Request) { serveFile(w, files, "login.html") })
	mux.HandleFunc("POST "+Path+"login", o.login)
	mux.HandleFunc("GET "+Path+"{$}", o.index(files))
	mux.Handle("GET "+Path+"api/state", o.authed(http.HandlerFunc(o.state)))
	mux.Handle("GET "+Path+"events", o.authed(http.HandlerFunc(o.events)))
	mux.Handle("GET "+Path+"api/agents/{name}/tools", o.authed(http.HandlerFunc(o.agentTools)))
	mux.Handle("POST "+Path+"api/servers/{name}/{action}", o.authed(http.HandlerFunc(o.serverAction)))
	mux.Handle("POST "+Path+"api/approve/{server}/{tool}", o.authed(http.HandlerFunc(o.approve)))
	return securityHeaders(mux)
}

// securityHeaders forbid framing (clickjacking) and any script or style
// not served by weft.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func serveFile(w http.ResponseWriter, files fs.FS, name string) {
	b, err := fs.ReadFile(files, name)
	if err != nil {
		http.Error(w, "weft: dashboard file missing", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// index serves the page, or exchanges ?token= for the cookie and
// redirects to the bare URL so that the token does not stay in the
// address bar or the history.
func (o Options) index(files fs.FS) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if tok := r.URL.Query().Get("token"); tok != "" {
			if !o.tokenMatches(tok) {
				http.Redirect(w, r, Path+"login?failed=1", http.StatusSeeOther)
				return
			}
			o.setCookie(w, r, tok)
			http.Redirect(w, r, Path, http.StatusSeeOther)
			return
		}
		if !o.ok(r) {
			http.Redirect(w, r, Path+"login", http.StatusSeeOther)
			return
		}
		serveFile(w, files, "index.html")
	}
}

func (o Options) login(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || !o.tokenMatches(in.Token) {
		http.Error(w, "weft: wrong token; use the value of the variable security.http_token_env names", http.StatusUnauthorized)
		return
	}
	o.setCookie(w, r, in.Token)
	w.WriteHeader(http.StatusNoContent)
}

func (o Options) setCookie(w http.ResponseWriter, r *http.Request, tok string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: Path, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

func (o Options) tokenMatches(tok string) bool {
	return o.Token == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(o.Token)) == 1
}

// ok reports whether r carries the token (cookie or bearer).
func (o Options) ok(r *http.Request) bool {
	if o.Token == "" {
		return true
	}
	if c, err := r.Cookie(cookieName); err == nil && o.tokenMatches(c.Value) {
		return true
	}
	got, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return found && o.tokenMatches(got)
}

func (o Options) authed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.ok(r) {
			http.Error(w, "weft: log in to the dashboard first ("+Path+"login)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (o Options) serverAction(w http.ResponseWriter, r *http.Request) {
	action := r.PathValue("action")
	switch action {
	case "reconnect", "disable", "enable", "remove":
	default:
		http.Error(w, "weft: unknown action "+action+"; use reconnect, disable, enable or remove", http.StatusNotFound)
		return
	}
	o.act(w, func() error { return o.Actions.Server(r.Context(), r.PathValue("name"), action) })
}

func (o Options) approve(w http.ResponseWriter, r *http.Request) {
	o.act(w, func() error { return o.Actions.Approve(r.Context(), r.PathValue("server"), r.PathValue("tool")) })
}

func (o Options) act(w http.ResponseWriter, do func() error) {
	if o.Actions == nil {
		http.Error(w, "weft: this weft takes no actions from the dashboard", http.StatusNotImplemented)
		return
	}
	if err := do(); err != nil {
		code := http.StatusBadRequest
		if errors.Is(err, hub.ErrNotFound) {
			code = http.StatusNotFound
		}
		http.Error(w, "weft: "+err.Error(), code)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
