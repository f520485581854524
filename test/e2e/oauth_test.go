//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/faceauth"
)

// authServer runs testdata/npm/oauth-provider.mjs (oidc-provider) for the
// MCP server at resource, with access tokens living ttl seconds, and
// returns its issuer URL.
func authServer(t *testing.T, resource string, ttl int) string {
	t.Helper()
	node := npmBin(t, "node")
	script, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "oauth-provider.mjs"))
	cmd := exec.Command(node, script, resource, fmt.Sprint(ttl))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = bufWriter{stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	issuer := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "issuer="); ok {
				issuer <- v
			}
		}
	}()
	select {
	case v := <-issuer:
		return v
	case <-time.After(60 * time.Second):
		t.Fatalf("the authorization server did not start:\n%s", stderr.String())
		return ""
	}
}

// protectedServer is a go-sdk MCP server behind go-sdk's bearer-token
// middleware, accepting the issuer's JWT access tokens for its own URL. Its
// tools say who called (whoami) and with which token (token: its jti).
func protectedServer(t *testing.T, ttl int) (serverURL, issuer string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serverURL = "http://" + ln.Addr().String() + "/mcp"
	issuer = authServer(t, serverURL, ttl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := faceauth.New(ctx, faceauth.Config{Issuer: issuer, Audience: serverURL, Endpoint: "/mcp", RequiredScopes: []string{"mcp:tools"}, ClockSkew: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	s := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "who is calling"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		who := "nobody"
		if ti := req.Extra.TokenInfo; ti != nil {
			who = ti.UserID
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + who}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "token", Description: "which access token the call carried"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		jti, _ := req.Extra.TokenInfo.Extra["jti"].(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token " + jti}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := &http.Server{Handler: v.Wrap(h), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return serverURL, issuer
}

// bufWriter feeds a syncBuffer.
type bufWriter struct{ b *syncBuffer }

func (w bufWriter) Write(p []byte) (int, error) { w.b.add(string(p)); return len(p), nil }

var loginURLRe = regexp.MustCompile(`Open this URL to log in:\n\s+(\S+)\n`)

// interactive runs a weft command that logs in, plays the browser (follows
// every redirect, the provider consents at once) and returns its output.
func (e *env) interactive(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weftBinary(e.t), append([]string{"--config", e.config}, args...)...)
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, errb := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = bufWriter{out}, bufWriter{errb}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var browsed bool
	for !browsed {
		if m := loginURLRe.FindStringSubmatch(errb.String()); m != nil {
			browse(e.t, m[1])
			browsed = true
			break
		}
		select {
		case <-errb.added():
		case err := <-done:
			e.t.Fatalf("weft %v ended before asking for a login (%v):\n%s%s", args, err, out.String(), errb.String())
		}
	}
	err := <-done
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// browse is the user's browser: it opens the authorization URL and follows
// the redirects to weft's loopback callback.
func browse(t *testing.T, authURL string) {
	t.Helper()
	if err := browser(authURL); err != nil {
		t.Fatal(err)
	}
}

func browser(authURL string) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(authURL)
	if err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "weft is logged in") {
		return fmt.Errorf("browser ended at %s with %d: %s", resp.Request.URL, resp.StatusCode, body)
	}
	return nil
}

// storedLogin reads the server's record from the 0600 token file.
type storedLogin struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

func (e *env) storedLogin(name string) *storedLogin {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.home, ".weft", "tokens.json"))
	if err != nil {
		return nil
	}
	all := map[string]*storedLogin{}
	if err := json.Unmarshal(data, &all); err != nil {
		e.t.Fatalf("tokens.json: %v", err)
	}
	return all[name]
}

// revoke revokes a refresh token at the provider, as an administrator
// ending the session would.
func revoke(t *testing.T, issuer string, l *storedLogin) {
	t.Helper()
	form := url.Values{"token": {l.RefreshToken}, "token_type_hint": {"refresh_token"}}
	req, _ := http.NewRequest(http.MethodPost, issuer+"/token/revocation", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(l.ClientID), url.QueryEscape(l.ClientSecret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("revocation: %s", resp.Status)
	}
}

// callUntil calls the tool until ok accepts the outcome or the deadline.
func callUntil(t *testing.T, cs *mcp.ClientSession, tool string, within time.Duration, ok func(text string, err error) bool) (string, error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool})
		cancel()
		text := ""
		if err == nil {
			for _, c := range res.Content {
				if tc, isText := c.(*mcp.TextContent); isText {
					text += tc.Text
				}
			}
			if res.IsError {
				err = fmt.Errorf("%s", text)
			}
		}
		if ok(text, err) {
			return text, err
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no expected outcome within %v; last: %q, %v", tool, within, text, err)
		}
		time.Sleep(200 * time.Millisecond) // polling a time-driven expiry
	}
}
