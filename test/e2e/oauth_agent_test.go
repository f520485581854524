//go:build unix

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// clientIDOf reads the client_id claim of a JWT access token.
func clientIDOf(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		ClientID string `json:"client_id"`
	}
	if err != nil || json.Unmarshal(payload, &claims) != nil || claims.ClientID == "" {
		t.Fatalf("no client_id in the token's claims %s (%v)", payload, err)
	}
	return claims.ClientID
}

// With oidc-provider issuing the tokens, gateway.auth.agent_claim =
// "client_id" makes one registered client act as agent coder: weft serve
// gives its token coder's view at /mcp and refuses it at reviewer's path;
// another client's token, mapped to no agent, sees everything at /mcp but
// no agent's path.
func TestProviderClientActsAsItsAgent(t *testing.T) {
	e := newEnv(t)
	e.listen = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	face := "http://" + e.listen + "/mcp"
	issuer := authServer(t, face, 300)
	coderToken, otherToken := machineToken(t, issuer, face), machineToken(t, issuer, face)
	fake := testutil.FakeServerBinary(t)
	cfg := fmt.Sprintf("[gateway.auth]\nissuer = %q\naudience = %q\nagent_claim = \"client_id\"\n\n"+
		"[gateway.auth.agents]\n%q = \"coder\"\n\n"+
		"[tools.mcp_servers.one]\ntarget = %q\nargs = [\"--name\", \"one\"]\n\n"+
		"[tools.mcp_servers.two]\ntarget = %q\nargs = [\"--name\", \"two\"]\n\n"+
		"[agents.coder]\nservers = [\"one\"]\n\n[agents.reviewer]\nservers = [\"two\"]\n",
		issuer, face, clientIDOf(t, coderToken), fake, fake)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")

	servers := func(token, path string) []string { // the servers of the tools listed
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: base + path, HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
		if err != nil {
			t.Fatalf("connect to %s: %v", path, err)
		}
		defer cs.Close()
		var out []string
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if server, _, ok := strings.Cut(tool.Name, "__"); ok && server != "weft" && !slices.Contains(out, server) {
				out = append(out, server)
			}
		}
		slices.Sort(out)
		return out
	}
	status := func(token, path string) int {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Transport: bearer(token)}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := servers(coderToken, "/mcp"); !slices.Equal(got, []string{"one"}) {
		t.Errorf("coder's client at /mcp sees the tools of %v; want coder's view (one)", got)
	}
	if got := status(coderToken, "/agents/reviewer/mcp"); got != http.StatusForbidden {
		t.Errorf("coder's client at reviewer's path: %d, want 403", got)
	}
	if got := servers(otherToken, "/mcp"); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("an unmapped client at /mcp sees the tools of %v; want everything", got)
	}
	if got := status(otherToken, "/agents/coder/mcp"); got != http.StatusForbidden {
		t.Errorf("an unmapped client at coder's path: %d, want 403", got)
	}
}
