//go:build unix

package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// initBody is a valid initialize request; hostile cases vary around it.
const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// post sends one raw request to a running weft and returns status and body.
func post(t *testing.T, url, body string, header map[string]string) (int, string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	for k, v := range header {
		h[k] = v
	}
	return request(t, http.MethodPost, url, body, h)
}

// request sends one request with the given headers ("Host" sets the Host
// header) and returns the status and the start of the body.
func request(t *testing.T, method, url, body string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}

// TestHostileHTTPRequestsAreRefused: each hostile
// request to the HTTP face gets its own refusal; a plain request still works.
func TestHostileHTTPRequestsAreRefused(t *testing.T) {
	e := newEnv(t)
	s := e.serve()
	cases := []struct {
		name   string
		body   string
		header map[string]string
		status int
		says   string
	}{
		{"Host evil.com (DNS rebinding)", initBody, map[string]string{"Host": "evil.com"}, 403, `Host "evil.com" refused`},
		{"foreign Origin", initBody, map[string]string{"Origin": "http://evil.com"}, 403, "cross-origin request refused"},
		{"Origin null", initBody, map[string]string{"Origin": "null"}, 403, "cross-origin request refused"},
		{"text/plain POST", initBody, map[string]string{"Content-Type": "text/plain"}, 415, "Content-Type must be application/json"},
		{"5 MiB body", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`, nil, 413, "request body exceeds"},
		{"JSON-RPC batch", "[" + initBody + "]", nil, 400, "batches are not accepted"},
		{"both name and Name", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"weft__search_tools","Name":"weft__call_tool"}}`, nil, 400, `appears more than once`},
		{"invalid JSON", `{"jsonrpc":`, nil, 400, "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := post(t, s.url, c.body, c.header)
			if status != c.status || !strings.Contains(body, c.says) {
				t.Fatalf("got %d %q, want %d containing %q", status, body, c.status, c.says)
			}
			t.Logf("weft answered %d: %s", status, strings.TrimSpace(body))
		})
	}
	status, _ := post(t, strings.Replace(s.url, "/mcp", "/admin/status", 1), "", map[string]string{"Host": "evil.com"})
	if status != 403 {
		t.Errorf("admin endpoint with Host evil.com: got %d, want 403", status)
	}
	if status, body := post(t, s.url, initBody, nil); status != 200 {
		t.Fatalf("plain initialize refused: %d %s", status, body)
	}
}

// TestNonLoopbackListenNeedsToken: binding every interface
// without a bearer token is refused; with one, requests without it get 401
// and the right token is accepted.
func TestNonLoopbackListenNeedsToken(t *testing.T) {
	e := newEnv(t)
	_, errOut, code := e.run("serve", "--listen", "0.0.0.0:0")
	if code == 0 || !strings.Contains(errOut, "security.http_token_env") {
		t.Fatalf("serve on 0.0.0.0 without a token: code %d, stderr %q", code, errOut)
	}
	if err := os.WriteFile(e.config, []byte("[security]\nhttp_token_env = \"WEFT_TOKEN\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEFT_TOKEN", "s3cret-token")
	e.listen = "0.0.0.0:0" // every interface, as in docs/guides/security.md
	s := e.serve()
	_, port, _ := strings.Cut(strings.TrimPrefix(s.url, "http://"), "]:")
	s.url = "http://127.0.0.1:" + port // weft reports [::]:PORT; reach it over loopback
	if status, body := post(t, s.url, initBody, nil); status != 401 {
		t.Fatalf("request without token: %d %s, want 401", status, body)
	}
	if status, _ := post(t, s.url, initBody, map[string]string{"Authorization": "Bearer wrong"}); status != 401 {
		t.Fatalf("request with a wrong token: %d, want 401", status)
	}
	if status, body := post(t, s.url, initBody, map[string]string{"Authorization": "Bearer s3cret-token"}); status != 200 {
		t.Fatalf("request with the token: %d %s, want 200", status, body)
	}
	if out, errOut, code := e.run("mcp", "list", "--json"); code != 0 || !strings.Contains(out, `"source": "live weft`) {
		t.Fatalf("mcp list with the token in the environment did not reach the live weft: %d %q %q", code, out, errOut)
	}
}

// TestHostileServerEntriesAreRefused checks through
// `weft mcp add`: each entry is refused with its reason and nothing is
// written to the config.
func TestHostileServerEntriesAreRefused(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.config, []byte("[security]\nblock_private_urls = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		says string
	}{
		{"semicolon in target", []string{"x", "echo;rm"}, `target contains ";"`},
		{"pipe in arg", []string{"x", "echo", "--", "a|b"}, `args[0] contains "|"`},
		{"backtick in arg", []string{"x", "echo", "--", "`id`"}, "args[0] contains \"`\""},
		{"dollar in arg", []string{"x", "echo", "--", "$(id)"}, `args[0] contains "$"`},
		{"redirect in target", []string{"x", "cat>/tmp/x"}, `target contains ">"`},
		{"newline in arg", []string{"x", "echo", "--", "a\nb"}, `args[0] contains "\n"`},
		{"file: URL", []string{"x", "file:///etc/passwd", "--type", "http"}, `URL scheme "file" is not allowed`},
		{"javascript: URL", []string{"x", "javascript:alert(1)", "--type", "http"}, `URL scheme "javascript" is not allowed`},
		{"loopback URL", []string{"x", "http://127.0.0.1:8080/mcp"}, "loopback address and security.block_private_urls is on"},
		{"IPv6 loopback URL", []string{"x", "http://[::1]/mcp"}, "loopback address"},
		{"localhost URL", []string{"x", "http://localhost/mcp"}, "loopback address"},
		{"RFC 1918 10/8", []string{"x", "http://10.1.2.3/mcp"}, "private (RFC 1918)"},
		{"RFC 1918 192.168/16", []string{"x", "https://192.168.0.10/mcp"}, "private (RFC 1918)"},
		{"link-local", []string{"x", "http://169.254.10.10/mcp"}, "link-local address"},
		{"cloud metadata", []string{"x", "http://169.254.169.254/latest/meta-data"}, "cloud metadata"},
		{"IPv6 ULA", []string{"x", "http://[fd00::1]/mcp"}, "IPv6 unique local"},
		{"octal loopback", []string{"x", "http://0177.0.0.1/mcp"}, "loopback"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := e.run(append([]string{"mcp", "add"}, c.args...)...)
			if code == 0 || !strings.Contains(errOut, c.says) {
				t.Fatalf("got code %d, stderr %q; want a refusal containing %q", code, errOut, c.says)
			}
			t.Logf("weft answered: %s", strings.TrimSpace(errOut))
		})
	}
	b, _ := os.ReadFile(e.config)
	if strings.Contains(string(b), "mcp_servers") {
		t.Fatalf("a refused entry was written:\n%s", b)
	}
}

// TestHostileStdioMessagesAreAnswered: a refused message on weft
// mcp-server's stdin is answered with its JSON-RPC error on stdout and
// skipped; the session goes on and answers the next message.
func TestHostileStdioMessagesAreAnswered(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.config, []byte("[limits]\nmax_message_bytes = 4096\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, line, says string
	}{
		{"JSON-RPC batch", "[" + initBody + "]", "batches are not accepted"},
		{"both name and Name", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"name":"a","Name":"b"}}`, `appears more than once`},
		{"oversized line", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 8192) + `"}}`, "exceeds 4096 bytes"},
		{"garbage", "hello", "not valid JSON"},
		{"unsafe id", strings.Replace(initBody, `"id":1`, `"id":1.5`, 1), "id 1.5 refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, weftBinary(t), "--config", e.config, "mcp-server")
			cmd.Env = e.environ()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = stdin.Close(); _ = cmd.Wait() }()
			replies := bufio.NewScanner(stdout)
			var got []string
			for _, line := range []string{c.line, initBody} {
				if _, err := io.WriteString(stdin, line+"\n"); err != nil {
					t.Fatalf("write: %v (stderr %q)", err, stderr.String())
				}
				if !replies.Scan() {
					t.Fatalf("no answer to line %d; stdout so far %q, stderr %q", len(got)+1, got, stderr.String())
				}
				got = append(got, replies.Text())
			}
			if !strings.Contains(got[0], c.says) || !strings.Contains(got[0], `"error":{"code":-32`) || !strings.Contains(got[1], `"result"`) {
				t.Fatalf("answers %q, stderr %q; want the refusal containing %q, then the answer to initialize", got, stderr.String(), c.says)
			}
		})
	}
}
