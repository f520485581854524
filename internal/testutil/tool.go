package testutil

import (
	"os"
	"os/exec"
	"testing"
)

// SystemTool returns the path of a program the test needs from the system
// (promtool, prometheus, chromium). Missing, it fails the test under CI
// (where .ci/run installs it) and skips it elsewhere, naming the package.
func SystemTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found: install it (apt-get install -y %s)", name, debianPackage)
	}
	t.Skipf("%s not found: install it (apt-get install -y %s) to run this test", name, debianPackage)
	return ""
}
