//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/testutil"
)

// TestPlanRunPrintsResults: `weft plan run` ends with each step's result
// variable; with --json it ends with every variable as one JSON object.
func TestPlanRunPrintsResults(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, "[tools.mcp_servers.fake]\ntarget = \""+testutil.FakeServerBinary(t)+"\"\nargs = [\"--name\", \"fake\"]\n")
	file := filepath.Join(e.home, "echo.json")
	if err := os.WriteFile(file, []byte(echoPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	id, _, _ := createPlan(t, e, "--from", file)
	out, errOut, code := e.run("plan", "run", id, "--yes")
	if code != 0 || !strings.Contains(out, "\nResults:\n  hi = ") {
		t.Fatalf("plan run: exit %d, no results\n%s%s", code, out, errOut)
	}
	out, errOut, code = e.run("plan", "run", id, "--yes", "--json")
	_, tail, ok := strings.Cut(out, "steps done")
	start := strings.Index(tail, "{")
	var vars map[string]any
	if code != 0 || !ok || start < 0 || json.Unmarshal([]byte(tail[start:]), &vars) != nil || vars["hi"] == nil {
		t.Fatalf("plan run --json: exit %d, no JSON object of the variables after the summary\n%s%s", code, out, errOut)
	}
}
