//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMCPImportDefaultsAndMessages: `weft mcp import` with no file reads
// Claude Desktop's config on this OS; a second import says it imported no
// servers (no dangling list); importing the .mcp.json weft already reads
// says so instead of importing.
func TestMCPImportDefaultsAndMessages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test writes Claude Desktop's Linux path")
	}
	e := newEnv(t)
	desktop := filepath.Join(e.home, ".config", "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(desktop), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(desktop, []byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run("mcp", "import")
	if code != 0 || stdout != "Imported 1 server into "+e.config+": fs\n" {
		t.Fatalf("first import: %d %q %s", code, stdout, stderr)
	}
	stdout, _, _ = e.run("mcp", "import")
	if want := "Imported no servers into " + e.config + ".\nSkipped (already configured): fs\n"; stdout != want {
		t.Errorf("second import printed %q, want %q", stdout, want)
	}
	beside := filepath.Join(e.home, ".mcp.json")
	if err := os.WriteFile(beside, []byte(`{"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = e.run("mcp", "import", beside)
	if code != 0 || !strings.Contains(stdout, "weft already reads "+beside) {
		t.Errorf("importing the .mcp.json beside weft.toml: %d %q", code, stdout)
	}
	if data, _ := os.ReadFile(e.config); strings.Contains(string(data), "git") {
		t.Errorf("the .mcp.json weft already reads was copied into weft.toml:\n%s", data)
	}

	e2 := newEnv(t)
	_, stderr, code = e2.run("mcp", "import")
	if code == 0 || !strings.Contains(stderr, "no Claude Desktop config at "+filepath.Join(e2.home, ".config", "Claude")) {
		t.Errorf("import without Claude Desktop: %d %s", code, stderr)
	}
}
