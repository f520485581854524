package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
)

// AdminServersPath is the admin endpoint that adds a server (POST); a
// DELETE of ServersPath+NAME removes one. Both go through the Manager, take
// an optional If-Match with the config hash (the ETag of GET StatusPath) and
// answer with the new hash as ETag.
const AdminServersPath = "/admin/servers"

// ServerSpec is the body of an add: the server, as `weft mcp add` takes it.
type ServerSpec struct {
	Name      string            `json:"name"`
	Target    string            `json:"target"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Type      string            `json:"type,omitempty"`
	Prefix    *string           `json:"prefix,omitempty"`
	TimeoutMS int               `json:"timeout_ms,omitempty"`
	// OAuth is the server's login settings (no secrets: the secret's variable name).
	OAuth *config.OAuth `json:"oauth,omitempty"`
	// NoVerify records the server without waiting for it to connect.
	NoVerify bool `json:"no_verify,omitempty"`
}

// Server is the config entry the spec describes.
func (s ServerSpec) Server() *config.Server {
	return &config.Server{Name: s.Name, Target: s.Target, Args: s.Args, Env: s.Env, Headers: s.Headers, Type: s.Type,
		Prefix: s.Prefix, TimeoutMS: s.TimeoutMS, OAuth: s.OAuth}
}

// AdminError is the body of a failed admin change.
type AdminError struct {
	Error string `json:"error"`
}

func (g *Gateway) serveAddServer(w http.ResponseWriter, r *http.Request) {
	m := g.opts.Manage.Manager
	if m == nil {
		adminError(w, http.StatusNotImplemented, errors.New("this weft has no config file to record changes in"))
		return
	}
	var spec ServerSpec
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		adminError(w, http.StatusBadRequest, fmt.Errorf("the body is not a server: %w", err))
		return
	}
	res, err := m.AddServer(r.Context(), spec.Server(), ChangeOptions{IfMatch: ifMatch(r), NoVerify: spec.NoVerify})
	if err != nil {
		adminError(w, adminStatus(err), err)
		return
	}
	g.logger.Info("admin API added a server", "server", spec.Name)
	adminJSON(w, http.StatusCreated, res)
}

func (g *Gateway) serveRemoveServer(w http.ResponseWriter, r *http.Request) {
	m := g.opts.Manage.Manager
	if m == nil {
		adminError(w, http.StatusNotImplemented, errors.New("this weft has no config file to record changes in"))
		return
	}
	name := r.PathValue("name")
	res, err := m.RemoveServer(r.Context(), name, ChangeOptions{IfMatch: ifMatch(r)})
	if err != nil {
		adminError(w, adminStatus(err), err)
		return
	}
	g.logger.Info("admin API removed a server", "server", name)
	adminJSON(w, http.StatusOK, res)
}

// ifMatch reads the If-Match precondition, quoted or not ("*" means any).
func ifMatch(r *http.Request) string {
	v := strings.Trim(strings.TrimSpace(r.Header.Get("If-Match")), `"`)
	if v == "*" {
		return ""
	}
	return v
}

// adminStatus maps a change's error to its HTTP status.
func adminStatus(err error) int {
	switch {
	case errors.Is(err, config.ErrConflict):
		return http.StatusPreconditionFailed
	case errors.Is(err, config.ErrServerExists), errors.Is(err, hub.ErrExists):
		return http.StatusConflict
	case errors.Is(err, config.ErrServerNotFound):
		return http.StatusNotFound
	case errors.Is(err, config.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotConnected):
		return http.StatusBadGateway
	}
	return http.StatusInternalServerError
}

func adminJSON(w http.ResponseWriter, status int, res ChangeResult) {
	w.Header().Set("ETag", `"`+res.Hash+`"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(res)
}

func adminError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(AdminError{Error: strings.Join(strings.Fields(err.Error()), " ")})
}

// setConfigETag names the config hash a change may send back as If-Match.
func (g *Gateway) setConfigETag(w http.ResponseWriter) {
	if m := g.opts.Manage.Manager; m != nil {
		w.Header().Set("ETag", `"`+m.ConfigHash()+`"`)
	}
}
