//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// guidePlan returns the example plan of docs/guides/plans.md, so that the
// guide shows what this test runs.
func guidePlan(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "plans.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- example plan -->\n```json\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/guides/plans.md lost its example plan")
	}
	return body
}

// TestPlanGuideCommands runs every command of the guide, in its order.
func TestPlanGuideCommands(t *testing.T) {
	e := newEnv(t)
	node := npmBin(t, "node")
	path := filepath.Dir(node) + ":" + os.Getenv("PATH")
	e.writeConfig(t, fmt.Sprintf("[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n", npmBin(t, "mcp-server-everything"), path))
	file := filepath.Join(e.home, "hello.json")
	if err := os.WriteFile(file, []byte(guidePlan(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(e.home, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"id":"bad","title":"Bad","steps":[
	 {"index":1,"title":"Greet","tool_calls":[{"name":"everything__echo","args":{"message":"${nam}"}}]},
	 {"index":2,"title":"Add","tool_calls":[{"name":"get-sum","args":{"a":1,"b":2}}],"depends_on":[3]},
	 {"index":3,"title":"Report","tool_calls":[{"name":"everything__echo"}],"depends_on":[2]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"plan", "validate", bad}, 1, []string{`weft: invalid plan: step 1 "Greet" uses ${nam}, but no plan variable or step result_variable is called "nam"; define it or fix the name; step 2 "Add" calls unknown tool "get-sum" (did you mean everything__get-sum?); ` + "`weft mcp list` shows the tools; step 3 \"Report\" is part of a dependency cycle (3 → 2 → 3); remove one of those dependencies"}},
		{[]string{"plan", "validate", file}, 0, []string{"valid (3 steps, 3 tool calls)"}},
		{[]string{"plan", "create", "--from", file, "--yes"}, 0, []string{"Saved plan hello.", "Plan hello completed: 3/3 steps done"}},
		{[]string{"plan", "import", file}, 1, []string{"plan hello already exists"}},
		{[]string{"plan", "list"}, 0, []string{"hello  Greet and add up  3      completed, 3 done, 0 failed"}},
		{[]string{"plan", "show", "hello"}, 0, []string{"Plan: Greet and add up (3 steps)\n\n  1. Greet    [everything__echo]\n  2. Add      [everything__get-sum]\n  3. Report   [everything__echo]       ← after: 1, 2\n\nVariables: greeting (step 1), sum (step 2), report (step 3)\nInputs: a=2, name=world\n"}},
		{[]string{"plan", "run", "hello", "--dry-run", "--var", "a=40"}, 0, []string{
			`1. Greet [everything__echo] {"message":"hello world"}`,
			`2. Add [everything__get-sum] {"a":40,"b":3}`,
			`3. Report [everything__echo] {"message":"<result of step 1: greeting> / <result of step 2: sum>"} ← after: 1, 2`,
			"Dry run: 3 tool calls would be made; none was."}},
		{[]string{"plan", "run", "hello", "--yes", "--var", "a=40"}, 0, []string{"done    step 3 Report", "Plan hello completed: 3/3 steps done, 0 failed, 0 skipped"}},
		{[]string{"plan", "resume", "hello"}, 0, []string{"Plan hello already completed"}},
		{[]string{"plan", "run", "hello", "--yes", "--tool-limit", "everything__echo=1"}, 1, []string{
			`step 3 "Report" failed: tool-call budget exhausted: everything__echo was called 1 times (its per-tool limit)`}},
		{[]string{"plan", "run", "hello", "--yes", "--max-calls", "2", "--max-parallel", "1"}, 1, []string{
			"tool-call budget exhausted: the run made its 2 tool calls (limit max_calls)"}},
		// Resume counts the 2 calls the checkpoint records: 3 leaves room for one.
		{[]string{"plan", "resume", "hello", "--max-calls", "2"}, 1, []string{"the run made its 2 tool calls"}},
		{[]string{"plan", "resume", "hello", "--max-calls", "3"}, 0, []string{"done    step 3 Report", "Plan hello completed: 3/3 steps done"}},
		{[]string{"plan", "delete", "hello"}, 0, []string{"Deleted plan hello."}},
		{[]string{"plan", "show", "hello"}, 1, []string{"no such plan"}},
	}
	for _, st := range steps {
		out, errOut, code := e.run(st.args...)
		if code != st.code {
			t.Fatalf("weft %v: exit %d, want %d\n%s\n%s", st.args, code, st.code, out, errOut)
		}
		for _, w := range st.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("weft %v: output lacks %q:\n%s%s", st.args, w, out, errOut)
			}
		}
		if slices.Contains(st.args, "a=40") && !slices.Contains(st.args, "--dry-run") {
			b, err := os.ReadFile(filepath.Join(e.home, ".weft", "plans", "hello.run.json"))
			if err != nil || !strings.Contains(string(b), `"report":"Echo: Echo: hello world / The sum of 40 and 3 is 43."`) {
				t.Errorf("checkpoint after run with a=40: %s %v", b, err)
			}
		}
	}
}
