package gateway_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// fakeManager records the changes the admin API asks for and fails with err.
type fakeManager struct {
	err     error
	ifMatch string
	added   *config.Server
	removed string
}

func (m *fakeManager) Config() *config.Config { return config.Default() }
func (m *fakeManager) ConfigHash() string     { return "h1" }
func (m *fakeManager) AddServer(_ context.Context, s *config.Server, o gateway.ChangeOptions) (gateway.ChangeResult, error) {
	m.added, m.ifMatch = s, o.IfMatch
	return gateway.ChangeResult{Status: hub.ServerStatus{Name: s.Name, Tools: 3}, Hash: "h2"}, m.err
}
func (m *fakeManager) EnableServer(context.Context, string) (gateway.ChangeResult, error) {
	return gateway.ChangeResult{}, m.err
}
func (m *fakeManager) RemoveServer(_ context.Context, name string, o gateway.ChangeOptions) (gateway.ChangeResult, error) {
	m.removed, m.ifMatch = name, o.IfMatch
	return gateway.ChangeResult{Hash: "h3"}, m.err
}

// TestAdminServerChanges: POST and DELETE go to the Manager with If-Match,
// need the token like the status endpoint, answer the new hash as ETag,
// and map each kind of failure to its status.
func TestAdminServerChanges(t *testing.T) {
	cases := []struct {
		name, method, path, body, token, ifMatch string
		err                                      error
		status                                   int
		etag                                     string
	}{
		{"add", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "tok", `"h1"`, nil, 201, `"h2"`},
		{"remove", "DELETE", gateway.ServersPath + "one", "", "tok", "", nil, 200, `"h3"`},
		{"no token", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "", "", nil, 401, ""},
		{"wrong token", "DELETE", gateway.ServersPath + "one", "", "nope", "", nil, 401, ""},
		{"unknown field", "POST", gateway.AdminServersPath, `{"name":"one","command":"x"}`, "tok", "", nil, 400, ""},
		{"stale If-Match", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "tok", "old", fmt.Errorf("weft.toml %w", config.ErrConflict), 412, ""},
		{"exists", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "tok", "", fmt.Errorf("server %w", config.ErrServerExists), 409, ""},
		{"not found", "DELETE", gateway.ServersPath + "zz", "", "tok", "", fmt.Errorf("server %w", config.ErrServerNotFound), 404, ""},
		{"cannot connect", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "tok", "", fmt.Errorf("x: %w", gateway.ErrNotConnected), 502, ""},
		{"cannot write", "POST", gateway.AdminServersPath, `{"name":"one","target":"x"}`, "tok", "", fmt.Errorf("weft.toml is read-only"), 500, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &fakeManager{err: c.err}
			h := hub.New(hub.Options{})
			defer h.Close(context.Background())
			gw := gateway.New(h, gateway.Options{Manage: gateway.ManageOptions{Manager: m}})
			srv := httptest.NewServer(gw.HandlerWith(gateway.HTTPOptions{Listen: "127.0.0.1:0", Token: "tok"}))
			defer srv.Close()
			req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			if c.ifMatch != "" {
				req.Header.Set("If-Match", c.ifMatch)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			if got := resp.Header.Get("ETag"); got != c.etag {
				t.Errorf("ETag %q, want %q", got, c.etag)
			}
			if c.status == 401 && (m.added != nil || m.removed != "") {
				t.Error("an unauthenticated request reached the manager")
			}
			if want := strings.Trim(c.ifMatch, `"`); c.status != 401 && c.status != 400 && m.ifMatch != want {
				t.Errorf("If-Match passed as %q, want %q", m.ifMatch, want)
			}
		})
	}
}
