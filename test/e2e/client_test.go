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

	"github.com/weft-dev/weft/internal/testutil"
)

// TestClientAddClaudeCode: `weft client add claude-code` with the real
// Claude Code on PATH goes through `claude mcp add`, and `claude mcp list`
// then shows weft Connected; `weft client list` reports it.
func TestClientAddClaudeCode(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	toml := "[tools.mcp_servers.one]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"one\"]\n"
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weftBinary(t), "--config", e.config, "client", "add", "claude-code")
	cmd.Dir = e.home
	cmd.Env = withDirOnPath(e.claudeEnv(), filepath.Dir(claude))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "with `claude mcp add`") {
		t.Fatalf("weft client add claude-code: %v\n%s", err, out)
	}
	list := e.claudeIn(claude, e.home, 5*time.Second, "mcp", "list")
	if line := statusLine(list, "weft"); !strings.Contains(line, "Connected") || !strings.Contains(line, "--config "+e.config) {
		t.Fatalf("claude mcp list does not show this weft connected:\n%s", list)
	}
	e.dir = e.home
	stdout, _, _ := e.run("client", "list")
	if !strings.Contains(stdout, "claude-code     user     yes (weft)") {
		t.Errorf("weft client list does not show weft in Claude Code's user config:\n%s", stdout)
	}
}

// TestClientAddFileClients: for the clients configured by file, `weft
// client add` writes the documented file under HOME (or the project) and
// keeps the old one as .bak; --print writes nothing.
func TestClientAddFileClients(t *testing.T) {
	e := newEnv(t)
	e.dir = t.TempDir() // the project
	cursor := filepath.Join(e.home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cursor, []byte(`{"mcpServers": {"other": {"command": "npx"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		file string
		has  string
	}{
		{[]string{"cursor"}, cursor, `"other"`},
		{[]string{"vscode"}, filepath.Join(e.dir, ".vscode", "mcp.json"), `"type": "stdio"`},
		{[]string{"windsurf", "--http", "http://127.0.0.1:7777/mcp"}, filepath.Join(e.home, ".codeium", "windsurf", "mcp_config.json"), `"serverUrl"`},
		{[]string{"codex"}, filepath.Join(e.home, ".codex", "config.toml"), `[mcp_servers.weft]`},
		{[]string{"claude-desktop"}, filepath.Join(e.home, ".config", "Claude", "claude_desktop_config.json"), `"mcp-server"`},
	} {
		stdout, stderr, code := e.run(append([]string{"client", "add"}, c.args...)...)
		if code != 0 || !strings.Contains(stdout, c.file) {
			t.Fatalf("client add %v: %d %s %s", c.args, code, stdout, stderr)
		}
		data, _ := os.ReadFile(c.file)
		if !strings.Contains(string(data), c.has) || !strings.Contains(string(data), "weft") {
			t.Errorf("%s after client add %v:\n%s", c.file, c.args, data)
		}
	}
	if _, err := os.Stat(cursor + ".bak"); err != nil {
		t.Errorf("no backup of the old Cursor config: %v", err)
	}
	stdout, _, _ := e.run("client", "add", "cursor", "--scope", "project", "--print")
	if !strings.Contains(stdout, `"mcpServers"`) {
		t.Errorf("--print shows no entry: %s", stdout)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".cursor")); err == nil {
		t.Error("--print wrote the project's .cursor/mcp.json")
	}
	stdout, _, _ = e.run("client", "list")
	for _, c := range []string{"cursor          user", "vscode          project", "windsurf        user", "codex           user", "claude-desktop  user"} {
		if !strings.Contains(stdout, c+"     yes (weft)") && !strings.Contains(stdout, c+"  yes (weft)") {
			t.Errorf("client list does not show weft in %s:\n%s", c, stdout)
		}
	}
	if n := strings.Count(stdout, "yes (weft)"); n != 5 {
		t.Errorf("client list shows weft in %d configs, want 5:\n%s", n, stdout)
	}
}

// withDirOnPath returns env with dir first on PATH.
func withDirOnPath(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = dir + string(os.PathListSeparator) + v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}
