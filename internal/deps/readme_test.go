package deps

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage: the README's Layout section names every
// package under internal/, so a new package cannot go unlisted.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "## Layout")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	out, err := exec.Command("go", "list", module+"internal/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		name := strings.TrimPrefix(pkg, module)
		if !strings.Contains(layout, "`"+name+"`") {
			t.Errorf("README.md's Layout does not name %s", name)
		}
	}
}
