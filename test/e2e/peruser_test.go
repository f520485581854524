//go:build unix

package e2e

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
	"github.com/weft-dev/weft/internal/testutil"
)

// jtiOf is the jti claim of a JWT, read without checking it.
func jtiOf(t *testing.T, token string) string {
	t.Helper()
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		t.Fatalf("a stored access token is not a JWT: %v", err)
	}
	jti, _ := claims["jti"].(string)
	return jti
}

// userCall calls a tool and returns its text, or the error's.
func userCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err.Error(), false
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text, !res.IsError
}

// envServers counts the envserver children of pid.
func envServers(pid int) int {
	n := 0
	for _, c := range childrenOf(pid) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c)); err == nil && strings.Contains(string(b), "envserver") {
			n++
		}
	}
	return n
}

// TestPerUserCredentials runs the security guide's per-user example with
// two signed-in users of weft's face (JWTs from a test issuer): each one's
// calls to a remote OAuth server carry the token they logged in with, and
// each one's calls to a stdio server reach their own instance, started with
// their own secret; a third user with no login is told how to log in; idle
// instances stop; no token or secret shows in weft.toml, the log or the
// listing.
func TestPerUserCredentials(t *testing.T) {
	t.Setenv("WEFT_TOKEN_STORE", "file")
	upURL, _ := protectedServer(t, 300)
	face := testutil.NewJWTIssuer(t)
	e := newEnv(t)
	e.listen = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	faceURL := "http://" + e.listen + "/mcp"
	tokenFor := func(user string) string {
		return face.Token(t, faceURL, map[string]any{"sub": user, "scope": "mcp:tools"})
	}
	block := markedBlock(t, "security.md", "per-user config")
	for _, r := range [][2]string{
		{"https://auth.example.com", face.URL}, {"http://127.0.0.1:7777/mcp", faceURL}, {"https://mcp.example.com/mcp", upURL},
		{"/usr/local/bin/team-server", testutil.GoBinary(t, "github.com/weft-dev/weft/testdata/envserver", "envserver")},
		{`idle_timeout = "15m"`, `idle_timeout = "2s"` + "\nenv = { ENVSERVER_PRINT = \"TEAM_TOKEN\" }"},
	} {
		old, repl := r[0], r[1]
		if !strings.Contains(block, old) {
			t.Fatalf("the guide's per-user block lost %q", old)
		}
		block = strings.ReplaceAll(block, old, repl)
	}
	block += "\n[audit]\nfile = \"audit.jsonl\"\nlog_arguments = true\n"
	// The static token is how `weft mcp list` reaches a face that wants JWTs.
	block = strings.Replace(block, "[gateway.auth]", "[security]\nhttp_token_env = \"WEFT_E2E_ADMIN\"\n\n[gateway.auth]", 1)
	t.Setenv("WEFT_E2E_ADMIN", "admin-"+rand.Text())
	if err := os.WriteFile(e.config, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}

	secretLines := strings.Split(strings.TrimSpace(markedBlock(t, "security.md", "per-user secret")), "\n")
	if len(secretLines) != 3 {
		t.Fatalf("the guide's per-user secret block has %d lines, want set, list, unset", len(secretLines))
	}
	// weft's own login lists the remote server's tools; alice and bob log
	// in for themselves; each stores a secret for the stdio server.
	secrets := map[string]string{"alice": "canary-alice-" + rand.Text(), "bob": "canary-bob-" + rand.Text()}
	for _, user := range []string{"", "alice", "bob"} {
		args := []string{"mcp", "login", "github", "--no-browser"}
		if user != "" {
			args = append(args, "--user", user)
		}
		if out, errOut, code := e.interactive(args...); code != 0 {
			t.Fatalf("weft %v: exit %d\n%s%s", args, code, out, errOut)
		}
		if user == "" {
			continue
		}
		if out := e.shell(t, strings.ReplaceAll(secretLines[0], "alice", user), "TEAM_TOKEN="+secrets[user]); !strings.Contains(out, "Stored TEAM_TOKEN for user "+user) {
			t.Fatalf("the guide's mcp secret set: %s", out)
		}
	}
	if out := e.shell(t, secretLines[1]); strings.TrimSpace(out) != "TEAM_TOKEN" {
		t.Errorf("mcp secret list: %q, want the name only", out)
	}

	s := e.serve()
	pid := s.cmd.Process.Pid
	seen := map[string]string{}
	// alice's client speaks 2025-11-25 (a session), bob's 2026-07-28
	// (stateless requests): each request carries its user.
	revision := map[string]string{"alice": "2025-11-25", "bob": ""}
	for _, user := range []string{"alice", "bob"} {
		cs := connectTokenAs(t, s.url, tokenFor(user), revision[user])
		text, ok := userCall(t, cs, "github__token", nil)
		want := "token " + jtiOf(t, e.storedLogin(oauth.UserKey("github", user)).AccessToken)
		if !ok || text != want {
			t.Errorf("%s's remote call: %q (ok %v), want %q", user, text, ok, want)
		}
		seen[user] = text
		text, ok = userCall(t, cs, "team__getenv", map[string]any{"name": "TEAM_TOKEN"})
		if !ok || !strings.HasPrefix(text, "TEAM_TOKEN="+secrets[user]+" ") {
			t.Errorf("%s's stdio call saw %q, want their own secret", user, text)
		}
		// The same call through weft__call_tool runs as the same user.
		text, ok = userCall(t, cs, "weft__call_tool", map[string]any{"name": "github__token"})
		if !ok || text != want {
			t.Errorf("%s through weft__call_tool: %q, want %q", user, text, want)
		}
	}
	if seen["alice"] == seen["bob"] {
		t.Errorf("alice and bob reached the server with the same token (%s)", seen["alice"])
	}
	if n := envServers(pid); n != 3 {
		t.Errorf("%d envserver processes, want 3 (weft's listing instance and one per user)", n)
	}
	metricsURL := strings.TrimSuffix(s.url, "/mcp") + "/metrics"
	both := []string{"alice", "bob"}
	checkPerUserStatus(t, e, metricsURL, tokenFor("alice"), map[string]hub.PerUserStatus{
		"github": {Instances: both, Logins: both}, "team": {Instances: both, Secrets: both}})

	carol := connectToken(t, s.url, tokenFor("carol"))
	text, ok := userCall(t, carol, "github__token", nil)
	if ok || !strings.Contains(text, "weft mcp login github --user carol") {
		t.Errorf("carol without a login: %q (ok %v), want the login hint", text, ok)
	}
	text, ok = userCall(t, carol, "team__getenv", map[string]any{"name": "TEAM_TOKEN"})
	if !ok || !strings.HasPrefix(text, "TEAM_TOKEN= ") {
		t.Errorf("carol, who stored no secret, saw %q", text)
	}

	// dave's client opens URLs: weft asks it to open the login page, and
	// his call goes on with his own new login.
	browsed := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dave, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-dave"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			go func() { browsed <- browser(req.Params.URL) }()
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer(tokenFor("dave"))}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer dave.Close()
	text, ok = userCall(t, dave, "github__token", nil)
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	if l := e.storedLogin(oauth.UserKey("github", "dave")); l == nil || !ok || text != "token "+jtiOf(t, l.AccessToken) {
		t.Errorf("dave's call after his login through the client: %q (ok %v)", text, ok)
	}

	// Idle instances stop after idle_timeout (2 s here).
	deadline := time.Now().Add(15 * time.Second)
	for envServers(pid) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d envserver processes 15 s after the last call, want 1", envServers(pid))
		}
		time.Sleep(100 * time.Millisecond) // polling the reaper's clock
	}

	checkPerUserStatus(t, e, metricsURL, tokenFor("alice"), map[string]hub.PerUserStatus{
		"github": {Instances: []string{"alice", "bob", "dave"}, Logins: []string{"alice", "bob", "dave"}},
		"team":   {Instances: []string{}, Secrets: both}})
	list, _, _ := e.run("mcp", "list")
	if want := "per user: team: instances: none; secrets stored: alice, bob"; !strings.Contains(list, want) {
		t.Errorf("mcp list lacks %q:\n%s", want, list)
	}
	s.stop(t)
	toml, _ := os.ReadFile(e.config)
	for _, user := range []string{"alice", "bob"} {
		tok := e.storedLogin(oauth.UserKey("github", user)).AccessToken
		for where, text := range map[string]string{"weft.toml": string(toml), "the log": s.stderr.String(), "mcp list": list} {
			if strings.Contains(text, secrets[user]) || strings.Contains(text, tok) {
				t.Errorf("%s's secret or token shows in %s", user, where)
			}
		}
	}
	// The variable's name is masked too: it is a value in weft.toml's env.
	if !regexp.MustCompile(`user=alice.*line="` + regexp.QuoteMeta(config.RedactedValue+"="+config.RedactedValue) + `"`).MatchString(s.stderr.String()) {
		t.Errorf("the log lacks the users' instances printing their secret, masked:\n%s", s.stderr.String())
	}
	checkTokenFileModes(t, filepath.Join(e.home))
	audit, _ := os.ReadFile(filepath.Join(filepath.Dir(e.config), "audit.jsonl"))
	for _, user := range []string{"alice", "bob", "carol", "dave"} {
		if !strings.Contains(string(audit), `"user":"`+user+`"`) {
			t.Errorf("the audit log names no call by %s", user)
		}
	}
	for user, secret := range secrets {
		if strings.Contains(string(audit), secret) {
			t.Errorf("%s's secret shows in the audit log", user)
		}
	}
	e.shell(t, secretLines[2])
	if out := e.shell(t, secretLines[1]); strings.TrimSpace(out) != "" {
		t.Errorf("mcp secret list after unset: %q", out)
	}
}

// shell runs a command line from a guide in sh, with the test's weft first
// on PATH and its config, and returns its stdout; a failure fails the test.
func (e *env) shell(t *testing.T, line string, env ...string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(e.environ(), append(env, "WEFT_CONFIG="+e.config,
		"PATH="+filepath.Dir(weftBinary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", line, err, out, stderr.String())
	}
	return string(out)
}
