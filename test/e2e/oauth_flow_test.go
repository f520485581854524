//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// accessTTL is the provider's access-token lifetime in the OAuth e2e: short,
// so that refreshes happen during the test.
const accessTTL = 3

// TestOAuthUpstreamLifecycle runs weft against a real authorization server
// (oidc-provider) in front of a protected MCP server: mcp add logs in with
// the authorization-code flow (dynamic registration, PKCE, loopback
// redirect), calls work through weft serve, expiring tokens are refreshed
// silently, a revoked refresh token makes the server needs_login, and
// `weft mcp login` / `weft mcp logout` take effect in the running weft. No
// token ever shows in weft.toml, logs or listings.
func TestOAuthUpstreamLifecycle(t *testing.T) {
	serverURL, issuer := protectedServer(t, accessTTL)
	t.Setenv("WEFT_TOKEN_STORE", "file")
	e := newEnv(t)
	var seen []string // everything weft showed, checked for tokens at the end

	// The security guide's commands, with the test server's URL.
	add := splitQuoted(strings.Replace(markedBlock(t, "security.md", "oauth add"), "https://api.example.com/mcp", serverURL, 1))
	login := splitQuoted(markedBlock(t, "security.md", "oauth login"))
	logout := splitQuoted(markedBlock(t, "security.md", "oauth logout"))
	out, errOut, code := e.interactive(add[1:]...)
	seen = append(seen, out, errOut)
	if code != 0 || !strings.Contains(out, "Added MCP server 'github' with 2 tools") {
		t.Fatalf("mcp add: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "Open this URL") {
		t.Errorf("the login URL went to stdout; it belongs on stderr")
	}
	first := e.storedLogin("github")
	if first == nil || first.AccessToken == "" || first.RefreshToken == "" {
		t.Fatalf("no access and refresh token stored after mcp add: %+v", first)
	}
	tokens := []string{first.AccessToken, first.RefreshToken, first.ClientSecret}
	checkTokenFileModes(t, e.home)

	s := e.serveArgs("--log-level", "debug")
	cs := connect(t, s.url, nil)
	text, _ := callUntil(t, cs, "github__whoami", 10*time.Second, func(text string, err error) bool { return err == nil })
	if text != "hello alice" {
		t.Fatalf("whoami through weft = %q, want the provider's user", text)
	}

	// Expiry: calls keep working while weft refreshes the access token.
	callUntil(t, cs, "github__whoami", 30*time.Second, func(_ string, err error) bool {
		if err != nil {
			t.Fatalf("a call failed while the token was being refreshed: %v", err)
		}
		l := e.storedLogin("github")
		tokens = append(tokens, l.AccessToken, l.RefreshToken)
		return l.AccessToken != first.AccessToken
	})

	// Revocation: once the access token lapses, the refresh fails and the
	// server needs a login, said plainly to the caller and in mcp list.
	revoke(t, issuer, e.storedLogin("github"))
	_, err := callUntil(t, cs, "github__whoami", 30*time.Second, func(_ string, err error) bool { return err != nil })
	if !strings.Contains(err.Error(), "github needs login: run `weft mcp login github`") {
		t.Fatalf("call after revocation: %v, want the login hint", err)
	}
	list, listErr, _ := e.run("mcp", "list")
	seen = append(seen, list, listErr)
	if !strings.Contains(list, "needs_login") || !strings.Contains(list, "weft mcp login github") {
		t.Errorf("mcp list does not show needs_login with the fix:\n%s", list)
	}

	// Login while weft serve runs: the running weft takes the new token.
	out, errOut, code = e.interactive(login[1:]...)
	seen = append(seen, out, errOut)
	if code != 0 || !strings.Contains(out, "Logged in to 'github'") {
		t.Fatalf("mcp login: exit %d\n%s\n%s", code, out, errOut)
	}
	l := e.storedLogin("github")
	tokens = append(tokens, l.AccessToken, l.RefreshToken)
	if l.ClientID != first.ClientID {
		t.Errorf("mcp login registered a new client %q; it should reuse %q", l.ClientID, first.ClientID)
	}
	callUntil(t, cs, "github__whoami", 15*time.Second, func(text string, err error) bool { return err == nil && text == "hello alice" })

	// Logout: the running weft shows needs_login within a couple of seconds.
	out, _, code = e.run(logout[1:]...)
	if code != 0 || !strings.Contains(out, "Logged out of 'github' (its refresh token is revoked)") {
		t.Fatalf("mcp logout: exit %d: %s", code, out)
	}
	start := time.Now()
	for !strings.Contains(e.statusOf("github"), "needs_login") {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("after logout the server is still %q", e.statusOf("github"))
		}
		time.Sleep(100 * time.Millisecond) // polling another process's state
	}
	t.Logf("logout took effect in the running weft after %v", time.Since(start).Round(100*time.Millisecond))

	// A client that can open URLs logs weft in during its call.
	browsed := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	urlClient, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-url"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" || !strings.Contains(req.Params.Message, "github needs a login") {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			go func() { browsed <- browser(req.Params.URL) }() // the user's browser, opened by the client
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer urlClient.Close()
	res, err := urlClient.CallTool(ctx, &mcp.CallToolParams{Name: "github__whoami"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hello alice" {
		t.Fatalf("a call with URL elicitation: %v %+v", err, res)
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	l = e.storedLogin("github")
	tokens = append(tokens, l.AccessToken, l.RefreshToken, l.ClientSecret)

	// mcp add while weft serve runs: the login happens here, the running
	// weft connects with the stored token and records the server.
	add2 := append([]string{"mcp", "add", "github2"}, add[4:]...)
	out, errOut, code = e.interactive(add2...)
	seen = append(seen, out, errOut)
	if code != 0 || !strings.Contains(out, "Added MCP server 'github2' with 2 tools") {
		t.Fatalf("mcp add through the running weft: exit %d\n%s\n%s", code, out, errOut)
	}
	if st := e.statusOf("github2"); st != "active" {
		t.Errorf("github2 is %q in the running weft", st)
	}
	l = e.storedLogin("github2")
	tokens = append(tokens, l.AccessToken, l.RefreshToken, l.ClientSecret)

	get, getErr, _ := e.run("mcp", "get", "github")
	listJSON, _, _ := e.run("mcp", "list", "--json")
	s.stop(t)
	cfgText, _ := os.ReadFile(e.config)
	seen = append(seen, get, getErr, listJSON, string(cfgText), "serve log\n"+s.stderr.String())
	for _, tok := range tokens {
		if len(tok) < 8 {
			continue
		}
		for _, text := range seen {
			if strings.Contains(text, tok) {
				t.Errorf("a token (%s…) leaked into:\n%.300s", tok[:6], text)
			}
		}
	}
}

// statusOf returns the server's status as the live weft reports it.
func (e *env) statusOf(name string) string {
	out, _, _ := e.run("mcp", "list", "--json")
	var l struct {
		Servers []struct{ Name, Status string } `json:"servers"`
	}
	_ = json.Unmarshal([]byte(out), &l)
	for _, s := range l.Servers {
		if s.Name == name {
			return s.Status
		}
	}
	return ""
}

// TestOAuthGuideConfigs loads every OAuth configuration example of the
// security guide.
func TestOAuthGuideConfigs(t *testing.T) {
	for _, marker := range []string{"oauth config", "token store config", "face auth config"} {
		path := filepath.Join(t.TempDir(), "weft.toml")
		if err := os.WriteFile(path, []byte(markedBlock(t, "security.md", marker)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load(path); err != nil {
			t.Errorf("the guide's %q example does not load: %v", marker, err)
		}
	}
}

func checkTokenFileModes(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".weft")
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("state dir %s: %v, want mode 0700", dir, err)
	}
	for _, f := range []string{"tokens.json", "tokens.stamp"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", f, err)
		}
	}
}
