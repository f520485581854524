//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"
)

// withWeftOnPath returns env with the test's weft binary first on PATH, so
// a bare `weft` in a client's config runs it.
func withWeftOnPath(t *testing.T, env []string) []string {
	return withDirOnPath(env, filepath.Dir(weftBinary(t)))
}

// claudeIn runs the real `claude` in dir with weft on PATH and MCP_TIMEOUT
// (Claude Code's own bound on a server's start) set to timeout.
func (e *env) claudeIn(bin, dir string, timeout time.Duration, args ...string) string {
	e.t.Helper()
	env := append(withWeftOnPath(e.t, e.claudeEnv()), fmt.Sprintf("MCP_TIMEOUT=%d", timeout.Milliseconds()))
	return e.claudeWith(bin, dir, env, args...)
}

// statusLine returns the line of `claude mcp list` output for server name.
func statusLine(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, name+":") {
			return l
		}
	}
	return ""
}

// TestClaudeProjectAddOfWeftDoesNotLaunchItself runs exactly what a user
// does beside weft.toml: `claude mcp add -s project weft -- weft mcp-server`
// writes .mcp.json next to weft.toml; the weft Claude Code starts reads
// that file, must not start itself from it, and so shows Connected within
// Claude Code's 5 s start bound.
func TestClaudeProjectAddOfWeftDoesNotLaunchItself(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	toml := "[tools.mcp_servers.one]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"one\"]\n"
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e.claudeIn(claude, e.home, 5*time.Second, "mcp", "add", "-s", "project", "weft", "--", "weft", "mcp-server")
	if !strings.Contains(out, "Added stdio MCP server weft") {
		t.Fatalf("claude mcp add: %s", out)
	}
	data, err := os.ReadFile(filepath.Join(e.home, ".mcp.json"))
	if err != nil || !strings.Contains(string(data), `"mcp-server"`) {
		t.Fatalf(".mcp.json beside weft.toml does not hold the weft entry: %v %s", err, data)
	}
	// The approval a user gives at the first `claude` in the project.
	approve := `{"enabledMcpjsonServers": ["weft"]}`
	if err := os.MkdirAll(filepath.Join(e.home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".claude", "settings.local.json"), []byte(approve), 0o600); err != nil {
		t.Fatal(err)
	}
	out = e.claudeIn(claude, e.home, 5*time.Second, "mcp", "list")
	if line := statusLine(out, "weft"); !strings.Contains(line, "Connected") {
		t.Fatalf("claude mcp list does not show weft connected within 5 s:\n%s", out)
	}
	// The weft a one-shot command runs reads the same files and says why it
	// skips the entry.
	cmd := exec.Command(weftBinary(t), "mcp", "list")
	cmd.Dir, cmd.Env = e.home, withWeftOnPath(t, e.environ())
	stderr, _ := cmd.CombinedOutput()
	if !strings.Contains(string(stderr), `.mcp.json: server \"weft\" starts this weft`) {
		t.Errorf("weft mcp list does not warn about the self-launching entry:\n%s", stderr)
	}
}
