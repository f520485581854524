//go:build unix

package e2e

import (
	"context"
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

// claudeEnv is an offline environment for the real Claude Code binary: its
// own HOME, no telemetry or other non-essential traffic.
func (e *env) claudeEnv() []string {
	return append(e.environ(), "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
}

// claude runs the real `claude` binary with args in e.home and returns its
// combined output.
func (e *env) claude(bin string, args ...string) string {
	e.t.Helper()
	return e.claudeWith(bin, e.home, e.claudeEnv(), args...)
}

// claudeWith runs `claude` with args in dir with env.
func (e *env) claudeWith(bin, dir string, env []string, args ...string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("claude %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestBridgeOutboundClaudeMcpAddWeft checks with the real Claude
// Code: after `claude mcp add weft -- weft mcp-server --config F`,
// `claude mcp list` reports weft connected.
func TestBridgeOutboundClaudeMcpAddWeft(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	toml := "[tools.mcp_servers.one]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"one\"]\n"
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e.claude(claude, "mcp", "add", "weft", "--", weftBinary(t), "mcp-server", "--config", e.config)
	if !strings.Contains(out, "Added stdio MCP server weft") {
		t.Fatalf("claude mcp add: %s", out)
	}
	out = e.claude(claude, "mcp", "list")
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "weft:") {
			line = l
		}
	}
	if !strings.Contains(line, "Connected") {
		t.Fatalf("claude mcp list does not show weft connected:\n%s", out)
	}
}

// TestBridgeInboundClaudeCodeTools checks with the real
// Claude Code behind weft: claude-code__Read and claude-code__Bash work
// through weft, Claude Code's children see the delegation depth, and a
// missing `claude` leaves only that server disconnected, with the reason.
func TestBridgeInboundClaudeCodeTools(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	toml := "[tools.mcp_servers.claude-code]\ntarget = \"" + claude + "\"\nargs = [\"mcp\", \"serve\"]\n\n" +
		"[tools.mcp_servers.no-claude]\ntarget = \"" + filepath.Join(e.home, "missing", "claude") + "\"\nargs = [\"mcp\", \"serve\"]\n\n" +
		"[tools.mcp_servers.one]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"one\"]\n"
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(e.home, "note.txt")
	if err := os.WriteFile(file, []byte("woven through weft\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.serve()
	cs := connect(t, s.url, nil)
	call := func(name string, args map[string]any) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("call %s: %v %+v", name, err, res)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if got := call("claude-code__Read", map[string]any{"file_path": file}); !strings.Contains(got, "woven through weft") {
		t.Errorf("claude-code__Read returned %q", got)
	}
	if got := call("claude-code__Bash", map[string]any{"command": "echo bridge-ok", "description": "echo"}); !strings.Contains(got, "bridge-ok") {
		t.Errorf("claude-code__Bash returned %q", got)
	}
	if got := call("claude-code__Bash", map[string]any{"command": "echo depth=$WEFT_DELEGATION_DEPTH", "description": "depth"}); !strings.Contains(got, "depth=1") {
		t.Errorf("Claude Code's shell does not see WEFT_DELEGATION_DEPTH=1: %q", got)
	}
	if got := call("one__echo", map[string]any{"text": "still"}); !strings.Contains(got, "one:still") {
		t.Errorf("one__echo returned %q", got)
	}
	if out, _, _ := e.run("mcp", "get", "claude-code"); !strings.Contains(out, "active") || !strings.Contains(out, "claude-code__Read") {
		t.Errorf("`weft mcp get claude-code` does not show it active with its tools:\n%s", out)
	}
	out, _, _ := e.run("mcp", "get", "no-claude")
	if !strings.Contains(out, "disconnected") || !strings.Contains(out, "no such file or directory") {
		t.Errorf("missing claude: `weft mcp get no-claude` does not say disconnected with the reason:\n%s", out)
	}
}
