//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
)

// startAdd starts `weft mcp add NAME` (unverified, so the write is most of
// what it does) and returns it running, with its stdout collected.
func (e *env) startAdd(t *testing.T, name string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp", "add", "--no-verify", name, "sleep", "--", "1000")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// A SIGKILL at any moment of `weft mcp add` never leaves a torn weft.toml:
// rounds of adds of different names are killed at varied delays; the file
// always parses and holds every add that completed, and the next write
// sweeps the temporary files the killed writers left.
func TestKillDuringMcpAddNeverTearsWeftToml(t *testing.T) {
	e := newEnv(t)
	completed := map[string]bool{}
	for round := range 20 {
		type started struct {
			name string
			cmd  *exec.Cmd
			out  *strings.Builder
		}
		var adds []started
		for i := range 3 {
			name := fmt.Sprintf("r%02d_%d", round, i)
			cmd, out := e.startAdd(t, name)
			adds = append(adds, started{name, cmd, out})
		}
		// Vary the moment of the kill across rounds and processes: from at
		// once to well after a typical add has finished.
		for i, a := range adds {
			time.Sleep(time.Duration((round*7+i*3)%40) * time.Millisecond)
			_ = a.cmd.Process.Kill()
		}
		for _, a := range adds {
			if err := a.cmd.Wait(); err == nil && strings.Contains(a.out.String(), "Added MCP server '"+a.name+"'") {
				completed[a.name] = true
			}
		}
		checkConfigHolds(t, e.config, completed)
	}
	t.Logf("%d of 60 adds completed before their kill", len(completed))

	// Leftovers of killed writers, made older than a minute, are swept by
	// the next add that completes.
	dir := filepath.Dir(e.config)
	temps, _ := filepath.Glob(filepath.Join(dir, ".weft-tmp-*"))
	old := time.Now().Add(-2 * time.Minute)
	for _, p := range temps {
		_ = os.Chtimes(p, old, old)
	}
	out, errOut, code := e.run("mcp", "add", "--no-verify", "last", "sleep", "--", "1000")
	if code != 0 {
		t.Fatalf("mcp add last: exit %d\n%s%s", code, out, errOut)
	}
	completed["last"] = true
	checkConfigHolds(t, e.config, completed)
	temps, _ = filepath.Glob(filepath.Join(dir, ".weft-tmp-*"))
	for _, p := range temps {
		if info, err := os.Stat(p); err == nil && time.Since(info.ModTime()) > time.Minute {
			t.Errorf("temporary file older than a minute left beside weft.toml: %s", p)
		}
	}
}

// checkConfigHolds fails unless path parses and names every server in want.
func checkConfigHolds(t *testing.T, path string, want map[string]bool) {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) && len(want) == 0 {
		return // every add so far was killed before it wrote
	}
	cfg, err := config.Load(path)
	if err != nil {
		b, _ := os.ReadFile(path)
		t.Fatalf("weft.toml does not parse after a kill: %v\n%s", err, b)
	}
	for name := range want {
		if _, ok := cfg.Servers[name]; !ok {
			t.Fatalf("weft.toml lost %s, whose add completed", name)
		}
	}
}
