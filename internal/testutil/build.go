package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// RaceEnv, set to 1, builds every test binary (weft itself included) with
// the race detector, so that end-to-end tests catch data races in the
// processes they start. CI sets it for one run of the e2e tests.
const RaceEnv = "WEFT_TEST_RACE"

var built struct {
	sync.Mutex
	paths map[string]string // package → binary
	errs  map[string]error
}

// GoBinary builds the Go package pkg (a full import path) once per test
// binary, as an executable called name, and returns its path. A failed
// build fails every test that asks for it, with the compiler's output.
func GoBinary(t testing.TB, pkg, name string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if err := built.errs[pkg]; err != nil {
		t.Fatal(err)
	}
	if p, ok := built.paths[pkg]; ok {
		return p
	}
	p, err := build(pkg, name)
	if built.paths == nil {
		built.paths, built.errs = map[string]string{}, map[string]error{}
	}
	if err != nil {
		built.errs[pkg] = err
		t.Fatal(err)
	}
	built.paths[pkg] = p
	return p
}

func build(pkg, name string) (string, error) {
	dir, err := os.MkdirTemp("", "weft-test-bin-")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	args := []string{"build", "-o", p}
	if os.Getenv(RaceEnv) == "1" {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v: %s", pkg, err, out)
	}
	return p, nil
}

// FakeServerBinary returns testdata/fakeserver built: a stdio MCP server
// with NewServer's tools.
func FakeServerBinary(t testing.TB) string {
	t.Helper()
	return GoBinary(t, "github.com/weft-dev/weft/testdata/fakeserver", "fakeserver")
}

// FakeClaudeBinary returns testdata/fakeclaude built, named claude: a
// stand-in for Claude Code whose behaviour FAKE_CLAUDE_MODE picks.
func FakeClaudeBinary(t testing.TB) string {
	t.Helper()
	return GoBinary(t, "github.com/weft-dev/weft/testdata/fakeclaude", "claude")
}
