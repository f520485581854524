//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// echoPlan is a valid two-step plan over the fake server's echo tool.
const echoPlan = `{"title":"Echo twice","steps":[` +
	`{"index":1,"title":"Say hi","tool_calls":[{"name":"fake__echo","args":{"text":"hi"}}],"result_variable":"hi"},` +
	`{"index":2,"title":"Say it again","tool_calls":[{"name":"fake__echo","args":{"text":"${hi.text}"}}],"depends_on":[1]}]}`

var savedPlanID = regexp.MustCompile(`Saved plan ([A-Za-z0-9_-]+)\.`)

// createPlan runs `weft plan create ARGS` and returns the saved plan's id
// and the output.
func createPlan(t *testing.T, e *env, args ...string) (id, stdout, stderr string) {
	t.Helper()
	out, errOut, code := e.runInput("", append([]string{"plan", "create"}, args...)...)
	m := savedPlanID.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("plan create: exit %d, no saved plan\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	return m[1], out, errOut
}

// The LLM writes a plan, weft saves it, shows it, runs it (--yes), and
// `plan show` lists its steps.
func TestPlanCreateFromDescription(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI, llmtest.Reply{Text: "```json\n" + echoPlan + "\n```"})
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	id, out, _ := createPlan(t, e, "say hi twice", "--yes")
	t.Logf("stdout:\n%s", out)
	for _, want := range []string{"Plan: Echo twice (2 steps)", "1. Say hi         [fake__echo]", "Plan " + id + " completed: 2/2 steps done"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan create stdout lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[len(reqs[0].Messages)-1].Text, "say hi twice") {
		t.Errorf("LLM requests %d; want one carrying the description: %+v", len(reqs), reqs)
	}
	show, errOut, code := e.run("plan", "show", id)
	want := "Plan: Echo twice (2 steps)\n\n  1. Say hi         [fake__echo]\n  2. Say it again   [fake__echo]    ← after: 1\n"
	if code != 0 || !strings.Contains(show, want) || !strings.Contains(show, "Last run: completed, 2 done") {
		t.Errorf("plan show %s: exit %d\n%s%s", id, code, show, errOut)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".weft", "plans", id+".json"))
	if err != nil || !strings.Contains(string(b), `"description": "say hi twice"`) {
		t.Errorf("stored plan lacks the description: %v\n%s", err, b)
	}
}

// A draft naming a tool that is not in the catalog goes back to the
// model with the error, and the corrected draft is saved.
func TestPlanCreateUnknownToolRedrafted(t *testing.T) {
	bad := strings.Replace(echoPlan, `"fake__echo","args":{"text":"hi"}`, `"fake__shout","args":{"text":"hi"}`, 1)
	srv := llmtest.New(t, llmtest.OpenAI, llmtest.Reply{Text: bad}, llmtest.Reply{Text: echoPlan})
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	id, out, errOut := createPlan(t, e, "say hi twice", "--yes")
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if !strings.Contains(errOut, `weft: draft 1 rejected: invalid plan: step 1 "Say hi" calls unknown tool "fake__shout"`) {
		t.Errorf("stderr does not report the rejected draft:\n%s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d LLM requests, want 2", len(reqs))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; !strings.Contains(last.Text, `unknown tool "fake__shout"`) {
		t.Errorf("second request does not tell the model what was wrong: %+v", last)
	}
	if out, _, code := e.run("plan", "list"); code != 0 || !strings.Contains(out, id) {
		t.Errorf("plan list lacks %s:\n%s", id, out)
	}
}

// A draft whose id a stored plan has already gets a fresh id: the model
// cannot overwrite a plan.
func TestPlanCreateKeepsStoredPlan(t *testing.T) {
	withID := llmtest.Reply{Text: strings.Replace(echoPlan, `{"title"`, `{"id":"echo","title"`, 1)}
	srv := llmtest.New(t, llmtest.OpenAI, withID, withID)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	first, _, _ := createPlan(t, e, "say hi twice", "--yes")
	second, _, _ := createPlan(t, e, "say hi twice again", "--yes")
	if first != "echo" || second == "echo" || !strings.HasPrefix(second, "echo-twice-") {
		t.Errorf("ids %q then %q; want echo, then a fresh echo-twice-… id", first, second)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".weft", "plans", "echo.json"))
	if err != nil || !strings.Contains(string(b), `"description": "say hi twice"`) {
		t.Errorf("plan echo was replaced: %v\n%s", err, b)
	}
}

// Without [llm], or with the LLM unreachable, plan create fails with
// one line saying what to do, and saves nothing.
func TestPlanCreateErrors(t *testing.T) {
	fake := fmt.Sprintf("[tools.mcp_servers.fake]\ntarget = %q\n", testutil.FakeServerBinary(t))
	// max_replans = 1: two drafts, both naming a tool that does not exist.
	bad := llmtest.Reply{Text: strings.ReplaceAll(echoPlan, "fake__echo", "fake__shout")}
	stubborn := llmtest.New(t, llmtest.OpenAI, bad, bad)
	cases := []struct {
		name, config, want string
	}{
		{"no llm", fake, "weft: writing a plan from a description needs an LLM: add [llm] with model"},
		{"unreachable", agentConfig(t, "openai", fmt.Sprintf("http://127.0.0.1:%d/v1", freePort(t)), ""),
			"weft: plan create: step 1: cannot reach OpenAI-compatible LLM at http://127.0.0.1:"},
		{"no valid draft", agentConfig(t, "openai", stubborn.URL(), "[router.planning]\nmax_replans = 1\n"),
			`weft: plan create: the LLM wrote no valid plan (replan_limit after 2 drafts); the last draft: invalid plan: step 1 "Say hi" calls unknown tool "fake__shout"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.writeConfig(t, c.config)
			out, errOut, code := e.run("plan", "create", "say hi twice", "--yes")
			t.Logf("stderr, last line: %s", lastLine(errOut))
			if last := lastLine(errOut); code != 1 || !strings.HasPrefix(last, c.want) {
				t.Errorf("exit %d; last stderr line %q, want prefix %q\nstdout:\n%s", code, last, c.want, out)
			}
			if strings.Contains(out, "Saved plan") {
				t.Errorf("a plan was saved:\n%s", out)
			}
		})
	}
}

// The `plan create "…"` commands of docs/guides/agent.md and plans.md run
// against server-everything with a scripted model, and agent.md's output
// block is what its command prints.
func TestPlanCreateGuideCommands(t *testing.T) {
	node := npmBin(t, "node")
	addEcho := `{"title":"Add and echo","steps":[` +
		`{"index":1,"title":"Add 2 and 3","tool_calls":[{"name":"everything__get-sum","args":{"a":2,"b":3}}],"result_variable":"sum"},` +
		`{"index":2,"title":"Echo the sum","tool_calls":[{"name":"everything__echo","args":{"message":"${sum}"}}],"depends_on":[1],"result_variable":"echoed"}]}`
	srv := llmtest.New(t, llmtest.OpenAI, llmtest.Reply{Text: addEcho}, llmtest.Reply{Text: guidePlan(t)})
	e := newEnv(t)
	t.Setenv("LLMTEST_KEY", "sk-test")
	e.writeConfig(t, fmt.Sprintf("[llm]\nmodel = \"test-model\"\nbase_url = %q\napi_key_env = \"LLMTEST_KEY\"\n\n"+
		"[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n",
		srv.URL(), npmBin(t, "mcp-server-everything"), filepath.Dir(node)+":"+os.Getenv("PATH")))

	agentMD := readGuide(t, "agent.md")
	_, rest, ok := strings.Cut(agentMD, "<!-- plan create example -->\n```shell\n")
	line, rest, ok2 := strings.Cut(rest, "\n```")
	_, rest, ok3 := strings.Cut(rest, "```text\n")
	shown, _, ok4 := strings.Cut(rest, "\n```")
	if !ok || !ok2 || !ok3 || !ok4 {
		t.Fatal("docs/guides/agent.md lost its plan create example and its output")
	}
	out := runGuideLine(t, e, line)
	if !strings.Contains(out, shown) {
		t.Errorf("%s: output lacks the guide's block:\n%s\n--- got:\n%s", line, shown, out)
	}

	var planLine string
	for _, l := range strings.Split(readGuide(t, "plans.md"), "\n") {
		if strings.HasPrefix(l, `weft plan create "`) {
			planLine, _, _ = strings.Cut(l, "  #")
		}
	}
	if planLine == "" {
		t.Fatal(`docs/guides/plans.md shows no weft plan create "…" command`)
	}
	if out := runGuideLine(t, e, planLine); !strings.Contains(out, "Plan hello completed: 3/3 steps done") {
		t.Errorf("%s: the plan did not run:\n%s", planLine, out)
	}
}

func readGuide(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runGuideLine runs one `weft …` line of a guide and returns its stdout.
func runGuideLine(t *testing.T, e *env, line string) string {
	t.Helper()
	args, _ := shellWords(strings.TrimSpace(line))
	if len(args) == 0 || args[0] != "weft" {
		t.Fatalf("guide command %q does not start with weft", line)
	}
	out, errOut, code := e.run(args[1:]...)
	if code != 0 {
		t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", line, code, out, errOut)
	}
	return out
}
