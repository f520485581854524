//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/plan"
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
		e.expect(st.args, st.code, st.want...)
		if slices.Contains(st.args, "a=40") && !slices.Contains(st.args, "--dry-run") {
			cp, _, err := (&plan.Store{Dir: filepath.Join(e.home, ".weft", "plans")}).LoadCheckpoint("hello")
			if err != nil || cp.Variables["report"] != "Echo: Echo: hello world / The sum of 40 and 3 is 43." {
				t.Errorf("checkpoint after run with a=40: %v %v", cp, err)
			}
		}
	}
}

// TestPlanGuideMCPCLI runs the guide's mcp-cli commands on plans written
// exactly as mcp-cli saves them (internal/plan/testdata/mcp-cli/plans).
func TestPlanGuideMCPCLI(t *testing.T) {
	e := newEnv(t)
	node := npmBin(t, "node")
	path := filepath.Dir(node) + ":" + os.Getenv("PATH")
	e.writeConfig(t, fmt.Sprintf("[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n", npmBin(t, "mcp-server-everything"), path))
	fixtures := filepath.Join("..", "..", "internal", "plan", "testdata", "mcp-cli", "plans")
	dir := filepath.Join(e.home, ".mcp-cli", "plans")
	if err := os.CopyFS(dir, os.DirFS(fixtures)); err != nil {
		t.Fatal(err)
	}
	const id = "5f0c2d7e-8b1a-4c3e-9f6d-2a7b4e1c9d03"
	cmds := guideCommands(t, "<!-- mcp-cli commands -->")
	if len(cmds) != 4 {
		t.Fatalf("the guide's mcp-cli block has %d commands, want 4", len(cmds))
	}
	for _, c := range cmds {
		for i, a := range c {
			if strings.HasPrefix(a, "~/") {
				c[i] = filepath.Join(e.home, a[2:]) // what the shell does
			}
		}
	}
	steps := []struct {
		args []string
		code int
		want []string
	}{
		// Without a rule the bare names are not in the catalog.
		{[]string{"plan", "import", "--from-mcp-cli"}, 1, []string{`calls unknown tool "get-sum" (did you mean everything__get-sum?)`,
			"2 plan(s) not imported", "Imported 0 of 2 plans"}},
		{cmds[0], 0, []string{`Imported plan ` + id + ` "Add two numbers and echo the sum" (2 steps).`, "Imported 2 of 2 plans from " + dir}},
		{cmds[0], 1, []string{"plan " + id + " already exists; delete it, pass --force"}},
		{cmds[1], 0, []string{"Saved plan " + id + " (2 steps)."}},
		{cmds[2], 0, []string{"Plan " + id + " completed: 2/2 steps done"}},
		{[]string{"plan", "show", "e4a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b"}, 0, []string{"2. Greet again   [everything__echo]    ← after: 1"}},
		{cmds[3], 0, []string{"Plan e4a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b completed: 2/2 steps done"}},
		// Without the rule the file's plan differs from the stored one.
		{cmds[3][:len(cmds[3])-3], 1, []string{"plan e4a1b2c3-d4e5-4f60-8a7b-9c0d1e2f3a4b is already stored and differs from"}},
	}
	for _, st := range steps {
		e.expect(st.args, st.code, st.want...)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".weft", "plans", id+".json"))
	if err != nil || !strings.Contains(string(b), `"id": "b7e1c0f2-3d4a-4e5b-9c6d-7e8f9a0b1c2d"`) {
		t.Errorf("the stored plan lost mcp-cli's tool-call id: %s %v", b, err)
	}
	cp, _, err := (&plan.Store{Dir: filepath.Join(e.home, ".weft", "plans")}).LoadCheckpoint(id)
	if err != nil || cp.Variables["echoed"] != "Echo: The sum of 2 and 3 is 5." {
		t.Errorf("variables after the run: %v %v", cp, err)
	}
}

// guideCommands returns the weft commands of the sh block after marker in
// docs/guides/plans.md, without "weft" and comments.
func guideCommands(t *testing.T, marker string) [][]string {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "plans.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), marker+"\n```sh\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("docs/guides/plans.md lost its block %s", marker)
	}
	var out [][]string
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "weft" {
			t.Fatalf("guide line %q is not a weft command", line)
		}
		out = append(out, f[1:])
	}
	return out
}

// expect runs a weft command and checks its exit code and that its output
// holds each of want.
func (e *env) expect(args []string, code int, want ...string) {
	e.t.Helper()
	out, errOut, got := e.run(args...)
	if got != code {
		e.t.Fatalf("weft %v: exit %d, want %d\n%s\n%s", args, got, code, out, errOut)
	}
	for _, w := range want {
		if !strings.Contains(out+errOut, w) {
			e.t.Errorf("weft %v: output lacks %q:\n%s%s", args, w, out, errOut)
		}
	}
}
