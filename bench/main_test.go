//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestUnknownScenarioExitsWithUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--scenario", "nope"}, &stdout, &stderr); code != 2 {
		t.Fatalf("exit code = %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "unknown scenario") {
		t.Errorf("stderr = %q, want it to name the problem", stderr.String())
	}
}

// TestPlansScenarioPrintsStubAsJSON runs the cheapest scenario end to end:
// both binaries are built, the JSON is well formed, and nothing is left
// running.
func TestPlansScenarioPrintsStubAsJSON(t *testing.T) {
	res := runShortJSON(t, "plans")
	if res.Plans != "see docs/guides/plans.md" || !res.Short || res.Orphans != 0 || res.Machine.NProc < 1 {
		t.Errorf("result = %+v, want the plans stub, short mode, no orphans, a machine", res)
	}
}

func TestWeftEnvFlagAcceptsOnlyKeyValue(t *testing.T) {
	tests := []struct {
		in      string
		wantErr bool
	}{
		{"GOGC=400", false},
		{"GOMEMLIMIT=", false},
		{"GOGC", true},
		{"=400", true},
	}
	for _, tc := range tests {
		var e envList
		err := e.Set(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("Set(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
		}
		if err == nil && e.String() != tc.in {
			t.Errorf("Set(%q) kept %q", tc.in, e.String())
		}
	}
}

// runShortJSON runs one scenario in smoke mode with a private TMPDIR (the
// bench's workspace goes under it), expects success and decodes the JSON.
func runShortJSON(t *testing.T, scenario string) result {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--short", "--json", "--scenario", scenario}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code = %d; stderr:\n%s", code, stderr.String())
	}
	var res result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	return res
}
