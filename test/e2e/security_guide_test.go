//go:build unix

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityGuideNamesRealRegressionTests checks the security guide's
// table of attacks: one row per hardening defect, each naming at least one
// regression test, and every test it names exists in the repository.
func TestSecurityGuideNamesRealRegressionTests(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "guides", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "<!-- hostile inputs -->\n")
	table, _, _ = strings.Cut(table, "\n\n")
	if !ok {
		t.Fatal("docs/guides/security.md lost its table of attacks")
	}
	rows := strings.Split(table, "\n")[2:] // past the header and its rule
	if len(rows) != 16 {
		t.Errorf("the table has %d attacks, want 16 (one per hardening defect)", len(rows))
	}
	defined := testFuncs(t, root)
	name := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`")
	for _, row := range rows {
		found := name.FindAllStringSubmatch(row, -1)
		if len(found) == 0 {
			t.Errorf("row names no regression test: %s", row)
		}
		for _, m := range found {
			if !defined[m[1]] {
				t.Errorf("the guide names %s, which no _test.go file defines", m[1])
			}
		}
	}
}

// testFuncs is the set of test functions defined under root.
func testFuncs(t *testing.T, root string) map[string]bool {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
