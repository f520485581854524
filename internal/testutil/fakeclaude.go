package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	claudeOnce sync.Once
	claudeDir  string
	claudeErr  error
)

// FakeClaudeBinary builds testdata/fakeclaude (a stand-in for Claude Code
// whose behaviour FAKE_CLAUDE_MODE picks) once per test binary and returns
// its path.
func FakeClaudeBinary(t testing.TB) string {
	t.Helper()
	claudeOnce.Do(func() {
		claudeDir, claudeErr = os.MkdirTemp("", "weft-fakeclaude-")
		if claudeErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(claudeDir, "claude"), "github.com/weft-dev/weft/testdata/fakeclaude").CombinedOutput()
		if err != nil {
			claudeErr = &buildError{err: err, out: string(out)}
		}
	})
	if claudeErr != nil {
		t.Fatalf("build fakeclaude: %v", claudeErr)
	}
	return filepath.Join(claudeDir, "claude")
}
