//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// markedBlock returns the fenced block after <!-- marker --> in a guide.
func markedBlock(t *testing.T, guide, marker string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", guide))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- "+marker+" -->\n```")
	_, rest, _ = strings.Cut(rest, "\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("docs/guides/%s lost its %q block", guide, marker)
	}
	return body
}

// guardedWeft writes a config with the security guide's [gateway.auth]
// for oidc-provider, in front of the fake server, and returns weft's env,
// the face's URL and the issuer.
func guardedWeft(t *testing.T) (e *env, face, issuer string) {
	t.Helper()
	e = newEnv(t)
	e.listen = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	face = "http://" + e.listen + "/mcp"
	issuer = authServer(t, face, 300)
	block := markedBlock(t, "security.md", "face auth config")
	block = strings.Replace(block, "https://auth.example.com", issuer, 1)
	block = strings.Replace(block, "http://127.0.0.1:7777/mcp", face, 1)
	cfg := block + fmt.Sprintf("\n[tools.mcp_servers.fake]\ntarget = %q\n", testutil.FakeServerBinary(t))
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e, face, issuer
}

// machineToken registers a client_credentials client at the provider and
// returns an access token for resource.
func machineToken(t *testing.T, issuer, resource string) string {
	t.Helper()
	reg, _ := json.Marshal(map[string]any{"grant_types": []string{"client_credentials"}, "response_types": []string{},
		"redirect_uris": []string{}, "token_endpoint_auth_method": "client_secret_basic", "scope": "mcp:tools"})
	resp, err := http.Post(issuer+"/reg", "application/json", strings.NewReader(string(reg)))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&client)
	resp.Body.Close()
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "scope": {"mcp:tools"}}
	req, _ := http.NewRequest(http.MethodPost, issuer+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(client.ID), url.QueryEscape(client.Secret))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error_description"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	if tok.AccessToken == "" {
		t.Fatalf("no token from the provider (%s): %s", resp.Status, tok.Error)
	}
	return tok.AccessToken
}

// TestFaceAcceptsProviderTokens runs the security guide's [gateway.auth]
// against oidc-provider: its JWT for weft's URL opens the face, a tampered
// one does not, a client without a token learns where to log in, and an
// OAuth client (weft's own, in another weft) logs in through that.
// (Every other hostile token is a row of internal/faceauth's table test.)
func TestFaceAcceptsProviderTokens(t *testing.T) {
	e, face, issuer := guardedWeft(t)
	s := e.serve()

	resp, err := http.Post(s.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	chal := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != 401 || !strings.Contains(chal, `resource_metadata="http://`+e.listen+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("no token: %s, WWW-Authenticate %q", resp.Status, chal)
	}
	resp, err = http.Get("http://" + e.listen + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if meta.Resource != face || len(meta.Servers) != 1 || meta.Servers[0] != issuer {
		t.Errorf("protected-resource metadata %+v does not name weft and the issuer", meta)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	good := machineToken(t, issuer, face)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer(good)}}, nil)
	if err != nil {
		t.Fatalf("connect with the provider's token: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("list tools with the provider's token: %v", err)
	}

	// The same token with one character of its signature changed.
	tampered := good[:len(good)-2] + map[bool]string{true: "A", false: "B"}[good[len(good)-2] != 'A'] + good[len(good)-1:]
	req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err = (&http.Client{Transport: bearer(tampered)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("a tampered token: %s, want 401", resp.Status)
	}
	// weft's own OAuth client logs in to this weft: discovery through the
	// face's metadata, registration, PKCE and the token, then a listing.
	t.Setenv("WEFT_TOKEN_STORE", "file")
	client := newEnv(t)
	out, errOut, code := client.interactive("mcp", "add", "inner", s.url, "--no-browser")
	if code != 0 || !strings.Contains(out, "Added MCP server 'inner' with") {
		t.Fatalf("weft logging in to weft: exit %d\n%s\n%s", code, out, errOut)
	}

	s.stop(t)
	if strings.Contains(s.stderr.String(), good) {
		t.Error("the client's token shows in weft's log")
	}
}
