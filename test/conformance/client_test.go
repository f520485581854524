//go:build unix

package conformance

import (
	"path/filepath"
	"testing"
)

// TestClientConformance runs every client scenario of the suite (--suite
// all: core, auth, extensions, drafts) against testdata/conformance/client,
// which reaches the suite's test servers through weft's own upstream code.
func TestClientConformance(t *testing.T) {
	s := conformanceSuite(t)
	client := binary(t, "testdata/conformance/client")

	results := filepath.Join(t.TempDir(), "results")
	baseline, _ := filepath.Abs(baselineFile)
	code, output := s.run(t, t.TempDir(), "client", "--command", client, "--suite", "all",
		"-o", results, "--expected-failures", baseline)
	judge(t, "client", readResults(t, results, ""), ranScenarios(output), output)
	if code != 0 && !t.Failed() {
		t.Errorf("conformance client exited %d although every failure is expected:\n%s", code, output)
	}
	noneLeft(t, client)
}
