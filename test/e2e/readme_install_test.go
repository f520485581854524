//go:build unix

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// readmeBlock returns the command lines of the first sh block after the
// README heading, without comments.
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n"+heading+"\n")
	_, block, ok2 := strings.Cut(sec, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("README has no sh block under %q", heading)
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestReadmeInstall runs the README's Install block: `make install` (into a
// PREFIX, so the test's machine is untouched) puts a weft on PATH whose
// `weft version` names the version, commit and Go version.
func TestReadmeInstall(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on this machine")
	}
	lines := readmeBlock(t, "## Install")
	if strings.Join(lines, ";") != "make install;weft version" {
		t.Fatalf("the Install block changed; update this test: %q", lines)
	}
	prefix := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	make := exec.CommandContext(ctx, "make", "install", "PREFIX="+prefix)
	make.Dir = root
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	weft := filepath.Join(prefix, "bin", "weft")
	if runtime.GOOS == "windows" {
		weft += ".exe"
	}
	t.Setenv("PATH", filepath.Dir(weft)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := exec.CommandContext(ctx, "weft", "version").Output()
	if err != nil {
		t.Fatalf("weft version: %v", err)
	}
	got := string(out)
	if !strings.HasPrefix(got, "weft ") || !strings.Contains(got, "commit ") || strings.Contains(got, "commit unknown") ||
		!strings.Contains(got, runtime.Version()) {
		t.Errorf("weft version printed %q; want the version, the commit and %s", got, runtime.Version())
	}
}

// TestReadmeClients runs every line of the README's Clients block with HOME
// and the project in temporary directories and no `claude` on PATH, then
// checks `weft client list` shows weft in each client written.
func TestReadmeClients(t *testing.T) {
	weftBinary(t) // built before the first command's timeout starts
	e := newEnv(t)
	e.dir = t.TempDir()
	var list string
	for _, line := range readmeBlock(t, "## Clients") {
		args := strings.Fields(line)
		if args[0] != "weft" {
			t.Fatalf("not a weft command: %s", line)
		}
		out, errOut, code := e.run(args[1:]...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", line, code, out, errOut)
		}
		if strings.Contains(line, "--print") && !strings.Contains(out, `"url": "http://127.0.0.1:7777/mcp"`) {
			t.Errorf("%s printed %q", line, out)
		}
		list = out
	}
	for _, want := range []string{".claude.json", e.dir + "/.mcp.json", "claude_desktop_config.json", ".cursor/mcp.json",
		e.dir + "/.vscode/mcp.json", "mcp_config.json", ".codex/config.toml"} {
		found := false
		for _, l := range strings.Split(list, "\n") {
			found = found || (strings.HasSuffix(l, want) && strings.Contains(l, "yes (weft)"))
		}
		if !found {
			t.Errorf("weft client list does not show weft in %s:\n%s", want, list)
		}
	}
}
