package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// NPMBin returns a binary installed by testdata/npm (the reference
// servers, Claude Code, node), failing under CI when the fixtures are
// missing and skipping otherwise.
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0) // internal/testutil/npm.go
	p := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("npm fixture %s missing: run `npm ci --prefix testdata/npm`", name)
		}
		t.Skipf("npm fixture %s missing: run `npm ci --prefix testdata/npm`", name)
	}
	return p
}
