//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

const observeToken = "observe-token-123"

// get fetches url with the given headers ("Host" sets the Host header).
func get(t *testing.T, url string, header map[string]string) (int, string) {
	t.Helper()
	return request(t, http.MethodGet, url, "", header)
}

// bearer adds a token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// connectToken is connect for a weft that wants a bearer token. The client
// speaks 2025-11-25, so it holds a session the sessions page and the audit
// log can name (a 2026-07-28 client's requests are stateless).
func connectToken(t *testing.T, url, token string) *mcp.ClientSession {
	return connectTokenAs(t, url, token, "2025-11-25")
}

// connectTokenAs is connectToken with the client's protocol revision ("":
// the go-sdk default, 2026-07-28).
func connectTokenAs(t *testing.T, url, token, revision string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-observe"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func echo(t *testing.T, cs *mcp.ClientSession, tool string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("call %s: %v %+v", tool, err, res)
	}
}

// observeConfig is a weft.toml with one fake server, a token and an audit log.
func observeConfig(t *testing.T, readyRequires string) string {
	return fmt.Sprintf("[gateway]\nready_requires = [%s]\n\n[security]\nhttp_token_env = \"WEFT_TOKEN\"\n\n"+
		"[audit]\nfile = \"audit.jsonl\"\n\n[tools.mcp_servers.one]\ntarget = %q\nargs = [\"--name\", \"one\"]\n",
		readyRequires, testutil.FakeServerBinary(t))
}

// awaitHTTP polls url until it answers want, at most 30 s.
func awaitHTTP(t *testing.T, url string, want int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		code, body := get(t, url, nil)
		if code == want {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still answers %d %q, want %d", url, code, body, want)
		}
		<-tick.C
	}
}

func TestHealthMetricsAndAuditOnServe(t *testing.T) {
	e := newEnv(t)
	t.Setenv("WEFT_TOKEN", observeToken)
	e.writeConfig(t, observeConfig(t, `"one", "two"`))
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")
	auth := map[string]string{"Authorization": "Bearer " + observeToken}

	if code, body := get(t, base+"/healthz", nil); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz without token: %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, base+"/readyz", nil); code != 503 || !strings.Contains(body, "server two is not configured") {
		t.Fatalf("/readyz with a required server missing: %d %q, want 503 naming it", code, body)
	}
	if code, _ := get(t, base+"/healthz", map[string]string{"Host": "evil.example:80"}); code != 403 {
		t.Fatalf("/healthz with a foreign Host: %d, want 403", code)
	}
	if code, _ := get(t, base+"/metrics", nil); code != 401 {
		t.Fatalf("/metrics without token: %d, want 401", code)
	}

	echo(t, connectToken(t, s.url, observeToken), "one__echo")
	code, body := get(t, base+"/metrics", auth)
	if code != 200 || !strings.Contains(body, `weft_tool_calls_total{outcome="ok",server="one",tool="one__echo"} 1`) ||
		!strings.Contains(body, `weft_upstream_status{server="one",status="active"} 1`) {
		t.Fatalf("/metrics with token: %d, want the call counted and one active:\n%s", code, body)
	}

	e.writeConfig(t, observeConfig(t, `"one"`)) // the reload makes weft ready
	awaitHTTP(t, base+"/readyz", 200)
	_, body = get(t, base+"/metrics", auth)
	if !strings.Contains(body, `weft_config_reloads_total{result="ok"} 1`) {
		t.Errorf("the reload is not counted:\n%s", grepLines(body, "reload"))
	}

	recs := testutil.ReadJSONLines(t, filepath.Join(e.home, "audit.jsonl"))
	if len(recs) == 0 || recs[0]["kind"] != "tool_call" || recs[0]["tool"] != "one__echo" || recs[0]["face"] != "http" ||
		recs[0]["session"] == "" || recs[0]["outcome"] != "ok" || recs[0]["args_sha256"] == "" || recs[0]["args"] != nil {
		t.Fatalf("audit log: %v, want the call with face, session, outcome and a digest only", recs)
	}
	// A stateless (2026-07-28) request has no session but came over HTTP.
	echo(t, connectTokenAs(t, s.url, observeToken, ""), "one__echo")
	recs = testutil.ReadJSONLines(t, filepath.Join(e.home, "audit.jsonl"))
	var stateless map[string]any
	for _, r := range recs[1:] {
		if r["kind"] == "tool_call" {
			stateless = r
		}
	}
	if stateless == nil || stateless["face"] != "http" || stateless["session"] != nil && stateless["session"] != "" {
		t.Errorf("audit line of a stateless call: %v, want face http and no session", stateless)
	}
	if last := recs[len(recs)-1]; last["kind"] != "tool_call" {
		t.Errorf("last audit line %v, want the stateless call", last)
	}
	last := recs[len(recs)-2]
	if last["kind"] != "config_change" || last["change"].(map[string]any)["source"] != "reload" {
		t.Errorf("last audit line %v, want the reload as a config change", last)
	}
	if st, _ := os.Stat(filepath.Join(e.home, "audit.jsonl")); st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v, want 0600", st.Mode().Perm())
	}
}

func grepLines(text, word string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestPrometheusScrapesWeft runs the real Prometheus against a running
// weft, with the scrape config docs/guides/observability.md shows, and
// reads a call counter back through its query API.
func TestPrometheusScrapesWeft(t *testing.T) {
	prom := testutil.SystemTool(t, "prometheus", "prometheus")
	e := newEnv(t)
	t.Setenv("WEFT_TOKEN", observeToken)
	e.writeConfig(t, observeConfig(t, ""))
	s := e.serve()
	echo(t, connectToken(t, s.url, observeToken), "one__echo")
	target := strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/mcp")

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "weft-token")
	if err := os.WriteFile(tokenFile, []byte(observeToken), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := guideScrapeConfig(t, target, tokenFile)
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command(prom, "--config.file="+cfgFile, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logWriter{&logs}, &logWriter{&logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	query := fmt.Sprintf("http://127.0.0.1:%d/api/v1/query?query=%s", port,
		`weft_tool_calls_total%7Bserver%3D%22one%22%2Coutcome%3D%22ok%22%7D`)
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if v, ok := promValue(query); ok {
			if v != "1" {
				t.Fatalf("Prometheus read weft_tool_calls_total = %s, want 1", v)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus never scraped the call counter; its log:\n%s", logs.String())
		}
		<-tick.C
	}
}

// promValue runs an instant query and returns the first sample's value.
func promValue(url string) (string, bool) {
	resp, err := http.Get(url)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	var r struct {
		Data struct {
			Result []struct {
				Value []any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) == 0 || len(r.Data.Result[0].Value) != 2 {
		return "", false
	}
	v, _ := r.Data.Result[0].Value[1].(string)
	return v, true
}

// logWriter collects a child's output for failure messages.
type logWriter struct{ b *syncBuffer }

func (w *logWriter) Write(p []byte) (int, error) { w.b.add(string(p)); return len(p), nil }
