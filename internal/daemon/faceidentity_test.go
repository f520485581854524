package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/testutil"
)

// securityGuideBlock is the toml block after <!-- marker --> in the
// security guide, so that the test runs what users read.
func securityGuideBlock(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- "+marker+" -->\n```toml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("security.md lost its %q block", marker)
	}
	return block
}

// bearerTransport adds a bearer token to every request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// The security guide's agent identity example, through the real HTTP face
// with JWTs from a test issuer: a token whose azp maps to coder gets
// coder's view at /mcp and at coder's path, 403 at reviewer's path and on
// the admin API; a token mapped to no agent keeps /mcp (everything) but no
// agent's path. An agent's own static token works beside the JWTs, on its
// agent's path only.
func TestJWTIdentitySelectsTheAgent(t *testing.T) {
	is := testutil.NewJWTIssuer(t)
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	b := testutil.ServeHTTP(t, testutil.NewEchoServer("b", 1))
	block := strings.Replace(securityGuideBlock(t, "agent identity config"), "https://auth.example.com", is.URL, 1)
	path := writeConfig(t, block+fmt.Sprintf("\n[tools.mcp_servers.a]\ntarget = %q\n[tools.mcp_servers.b]\ntarget = %q\n", a, b)+
		"[agents.coder]\nservers = [\"a\"]\n[agents.reviewer]\nservers = [\"b\"]\ntoken = \"reviewer-secret\"\n")
	d := newDaemon(t, path)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o, err := daemon.HTTPOptions(ctx, cfg, "127.0.0.1:7777")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Gateway().HandlerWith(o))
	defer srv.Close()
	aud := cfg.Gateway.Auth.Audience
	coder := is.Token(t, aud, map[string]any{"azp": "cursor-team"})
	nobody := is.Token(t, aud, map[string]any{"azp": "someone-else"})

	tests := []struct {
		name, token, path string
		status            int      // of a plain request; 0: connect and list
		want              []string // the tools listed
	}{
		{"coder at /mcp", coder, "/mcp", 0, []string{"a__echo"}},
		{"coder at its path", coder, "/agents/coder/mcp", 0, []string{"a__echo"}},
		{"coder at reviewer's path", coder, "/agents/reviewer/mcp", 403, nil},
		{"coder on the admin API", coder, "/admin/status", 403, nil},
		{"coder on the dashboard", coder, "/ui/", 403, nil},
		{"no agent at /mcp", nobody, "/mcp", 0, []string{"a__echo", "b__echo"}},
		{"no agent at an agent's path", nobody, "/agents/coder/mcp", 403, nil},
		{"no agent on the admin API", nobody, "/admin/status", 200, nil},
		{"reviewer's static token at its path", "reviewer-secret", "/agents/reviewer/mcp", 0, []string{"b__echo"}},
		{"reviewer's static token at /mcp", "reviewer-secret", "/mcp", 403, nil},
		{"reviewer's static token at coder's path", "reviewer-secret", "/agents/coder/mcp", 403, nil},
		{"an unknown token", "forged", "/agents/reviewer/mcp", 401, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: bearerTransport(tt.token)}
			if tt.status != 0 {
				resp, err := client.Get(srv.URL + tt.path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tt.status {
					t.Fatalf("GET %s: %s, want %d", tt.path, resp.Status, tt.status)
				}
				return
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "jwt-client"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: srv.URL + tt.path, HTTPClient: client}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var got []string
			for _, name := range listed(t, cs) {
				if !strings.HasPrefix(name, "weft__") && name != "mcp_manage" {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("lists %v; want %v", got, tt.want)
			}
		})
	}
}
