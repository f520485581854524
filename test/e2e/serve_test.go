//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// connect opens a go-sdk client session to a running weft.
func connect(t *testing.T, url string, changed chan struct{}) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, opts).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func has(names []string, want string) bool {
	for _, n := range names {
		if n == want {
			return true
		}
	}
	return false
}

func TestServeWithNoConfigServesBuiltinsAndSaysHowToAdd(t *testing.T) {
	e := newEnv(t)
	s := e.serve()
	if !strings.Contains(s.stderr.String(), "weft mcp add") {
		t.Errorf("startup message does not say how to add a server:\n%s", s.stderr.String())
	}
	names := toolNames(t, connect(t, s.url, nil))
	if !has(names, "weft__search_tools") || !has(names, "weft__call_tool") {
		t.Fatalf("built-in tools missing: %v", names)
	}
	if code := s.stop(t); code != 0 {
		t.Fatalf("weft serve exited %d after SIGTERM, want 0", code)
	}
}

func TestMcpAddListRemoveWithRunningWeft(t *testing.T) {
	e := newEnv(t)
	fake := testutil.FakeServerBinary(t)
	out, errOut, code := e.run("mcp", "add", "one", fake, "--", "--name", "one")
	if code != 0 || !strings.Contains(out, "Added MCP server 'one' with 6 tools") {
		t.Fatalf("mcp add: code %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}

	s := e.serve()
	changed := make(chan struct{}, 1)
	cs := connect(t, s.url, changed)
	if names := toolNames(t, cs); !has(names, "one__echo") {
		t.Fatalf("one__echo not served: %v", names)
	}

	out, _, code = e.run("mcp", "list", "--json")
	var l struct {
		Source  string `json:"source"`
		Servers []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Tools  int    `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 {
		t.Fatalf("mcp list --json: %v (code %d): %s", err, code, out)
	}
	if !strings.HasPrefix(l.Source, "live") || len(l.Servers) != 1 || l.Servers[0].Status != "active" {
		t.Fatalf("mcp list did not show live status: %+v", l)
	}

	// An add applied by the running weft reaches the connected client.
	if _, errOut, code := e.run("mcp", "add", "two", fake, "--", "--name", "two"); code != 0 {
		t.Fatalf("second add: %s", errOut)
	}
	waitFor(t, changed, func() bool { return has(toolNames(t, cs), "two__echo") }, "two__echo after mcp add")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "two__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("call two__echo: %v %+v", err, res)
	}

	if out, errOut, code := e.run("mcp", "remove", "one"); code != 0 || !strings.Contains(out, "Removed MCP server 'one'") {
		t.Fatalf("mcp remove: %s %s", out, errOut)
	}
	waitFor(t, changed, func() bool { return !has(toolNames(t, cs), "one__echo") }, "one__echo gone after mcp remove")

	pid := s.cmd.Process.Pid
	if code := s.stop(t); code != 0 {
		t.Fatalf("weft serve exited %d", code)
	}
	if kids := childrenOf(pid); len(kids) != 0 {
		t.Fatalf("children left behind after SIGTERM: %v", kids)
	}
}

// waitFor waits for cond, re-checking on each list_changed notification.
func waitFor(t *testing.T, changed chan struct{}, cond func() bool, what string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case <-changed:
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestMcpAddRefusesWhatCannotConnect(t *testing.T) {
	e := newEnv(t)
	_, errOut, code := e.run("mcp", "add", "broken", "/nonexistent/server")
	if code == 0 || !strings.Contains(errOut, "nothing was written") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Fatalf("want one error line and a non-zero exit, got code %d: %q", code, errOut)
	}
	if _, err := os.Stat(e.config); err == nil {
		b, _ := os.ReadFile(e.config)
		if strings.Contains(string(b), "broken") {
			t.Fatalf("a server that could not connect was written:\n%s", b)
		}
	}
}

func TestMcpServerOverStdio(t *testing.T) {
	e := newEnv(t)
	fake := testutil.FakeServerBinary(t)
	if _, errOut, code := e.run("mcp", "add", "one", fake, "--", "--name", "one"); code != 0 {
		t.Fatal(errOut)
	}
	cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp-server")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "one__echo", Arguments: map[string]any{"text": "stdio"}})
	if err != nil || res.IsError {
		t.Fatalf("call over stdio: %v %+v", err, res)
	}
	pid := cmd.Process.Pid
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if kids := childrenOf(pid); len(kids) != 0 {
		t.Fatalf("children left behind: %v", kids)
	}
}
