//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/plan"
)

// crashPlan writes to server-memory's file-backed store: every
// add_observations step runs a slow idempotent call first, so a kill lands
// while the step is in flight and before its side effect. A re-run of a
// completed add step would show in the variables: server-memory answers
// addedObservations [] when the observation is already there.
const crashPlan = `{"id":"crash","title":"Crash safety","variables":{"who":"weft"},"steps":[
 {"index":1,"title":"Create entity","tool_calls":[{"name":"memory__create_entities","args":{"entities":[{"name":"${who}","entityType":"test","observations":[]}]}}],"result_variable":"created"},
 {"index":2,"title":"Add a","depends_on":[1],"tool_calls":[{"name":"everything__trigger-long-running-operation","args":{"duration":1,"steps":1}},{"name":"memory__add_observations","args":{"observations":[{"entityName":"${who}","contents":["obs-a"]}]}}],"result_variable":"a"},
 {"index":3,"title":"Add b","depends_on":[2],"tool_calls":[{"name":"everything__trigger-long-running-operation","args":{"duration":1,"steps":1}},{"name":"memory__add_observations","args":{"observations":[{"entityName":"${who}","contents":["obs-b after ${a.1.results.0.addedObservations.0}"]}]}}],"result_variable":"b"},
 {"index":4,"title":"Side branch","depends_on":[1],"tool_calls":[{"name":"everything__trigger-long-running-operation","args":{"duration":2,"steps":1}}],"result_variable":"side"},
 {"index":5,"title":"Add c","depends_on":[3,4],"tool_calls":[{"name":"everything__trigger-long-running-operation","args":{"duration":1,"steps":1}},{"name":"memory__add_observations","args":{"observations":[{"entityName":"${who}","contents":["obs-c"]}]}}],"result_variable":"c"},
 {"index":6,"title":"Read graph","depends_on":[5],"tool_calls":[{"name":"memory__read_graph"}],"result_variable":"graph"}]}`

// planEnv is an isolated weft with server-memory (on its own file) and
// server-everything, and the crash plan imported.
type planEnv struct {
	*env
	memFile string
	plans   string
}

func newPlanEnv(t *testing.T) *planEnv {
	e := &planEnv{env: newEnv(t)}
	node := npmBin(t, "node")
	path := filepath.Dir(node) + ":" + os.Getenv("PATH")
	e.memFile = filepath.Join(e.home, "memory.jsonl")
	e.plans = filepath.Join(e.home, ".weft", "plans")
	e.writeConfig(t, fmt.Sprintf("[tools.mcp_servers.memory]\ntarget = %q\nenv = { PATH = %q, MEMORY_FILE_PATH = %q }\n"+
		"[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n",
		npmBin(t, "mcp-server-memory"), path, e.memFile, npmBin(t, "mcp-server-everything"), path))
	file := filepath.Join(e.home, "crash.json")
	if err := os.WriteFile(file, []byte(crashPlan), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := e.run("plan", "import", file); code != 0 {
		t.Fatalf("plan import: %d %s %s", code, out, errOut)
	}
	return e
}

// checkpoint reads the crash plan's run state, its variables read back from
// their files as a resume would.
func (e *planEnv) checkpoint(t *testing.T) (completed, inflight []int, status string, vars map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.plans, "crash.run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b) {
		t.Fatalf("checkpoint is not valid JSON (a torn write?): %s", b)
	}
	cp, _, err := (&plan.Store{Dir: e.plans}).LoadCheckpoint("crash")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cp.StartedSteps {
		if !slices.Contains(cp.CompletedSteps, s) {
			inflight = append(inflight, s)
		}
	}
	return cp.CompletedSteps, inflight, string(cp.Status), cp.Variables
}

var startedRe = regexp.MustCompile(`\] started step (\d+) `)

// startedSteps lists the steps a process's output says it started.
func startedSteps(out string) []int {
	var steps []int
	for _, m := range startedRe.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		steps = append(steps, n)
	}
	return steps
}

// runUntil starts `weft plan run crash` and SIGKILLs it the moment its
// output shows trigger; it returns what it printed.
func (e *planEnv) runUntil(t *testing.T, trigger string, args ...string) string {
	t.Helper()
	cmd := exec.Command(weftBinary(t), append([]string{"--config", e.config, "plan"}, args...)...)
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if !killed && strings.Contains(sc.Text(), trigger) {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	_ = cmd.Wait()
	// The upstreams die with weft (or are reaped here): nothing may go on
	// writing the memory file behind the resume.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if !killed {
		t.Fatalf("weft plan %v never printed %q:\n%s", args, trigger, out.String())
	}
	return out.String()
}

// resume resumes until the run completes, checking that no completed step
// starts again and that resume stops on a non-idempotent in-flight step. It
// reports whether resume refused to go on without --rerun-inflight.
func (e *planEnv) resume(t *testing.T) (refused bool) {
	t.Helper()
	{
		completed, inflight, _, _ := e.checkpoint(t)
		out, errOut, code := e.run("plan", "resume", "crash")
		for _, s := range startedSteps(out) {
			if slices.Contains(completed, s) {
				t.Errorf("resume started step %d, which had completed", s)
			}
		}
		if code == 0 {
			return false
		}
		if !strings.Contains(errOut, "started but did not complete") {
			t.Fatalf("resume failed: %s\n%s", errOut, out)
		}
		for _, s := range inflight {
			if s != 4 && s != 6 && !strings.Contains(errOut, fmt.Sprintf("step %d ", s)) {
				t.Errorf("resume refusal does not name in-flight step %d: %s", s, errOut)
			}
		}
		out, errOut, code = e.run("plan", "resume", "crash", "--rerun-inflight")
		for _, s := range startedSteps(out) {
			if slices.Contains(completed, s) {
				t.Errorf("resume --rerun-inflight started step %d, which had completed", s)
			}
		}
		if code != 0 {
			t.Fatalf("resume --rerun-inflight: %s\n%s", errOut, out)
		}
		return true
	}
}

// observations counts each observation in server-memory's file.
func (e *planEnv) observations(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile(e.memFile)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var item struct {
			Observations []string `json:"observations"`
		}
		if json.Unmarshal([]byte(line), &item) == nil {
			for _, o := range item.Observations {
				counts[o]++
			}
		}
	}
	return counts
}

func TestPlanCrashResume(t *testing.T) {
	base := newPlanEnv(t)
	if out, errOut, code := base.run("plan", "run", "crash", "--yes"); code != 0 {
		t.Fatalf("uninterrupted run: %s\n%s", errOut, out)
	}
	_, _, status, want := base.checkpoint(t)
	wantObs := base.observations(t)
	if status != "completed" || len(wantObs) != 3 {
		t.Fatalf("uninterrupted run: status %s, observations %v", status, wantObs)
	}
	for _, tc := range []struct {
		kills []string
		// refuse: whether plain resume must stop on an in-flight step
		// (-1: depends on timing). Steps 2, 3 and 5 add observations, so
		// they are not idempotent; step 6 only reads.
		refuse int
	}{
		{[]string{"started step 2 "}, 1},
		{[]string{"done    step 2 "}, -1},
		{[]string{"started step 5 "}, 1},
		{[]string{"started step 6 "}, 0},
		{[]string{"started step 3 ", "started step 5 "}, 1},
	} {
		t.Run(strings.Join(tc.kills, "then "), func(t *testing.T) {
			e := newPlanEnv(t)
			e.runUntil(t, tc.kills[0], "run", "crash", "--yes")
			for _, k := range tc.kills[1:] {
				e.runUntil(t, k, "resume", "crash", "--rerun-inflight")
			}
			if refused := e.resume(t); tc.refuse >= 0 && refused != (tc.refuse == 1) {
				t.Errorf("plain resume refused: %v, want %v", refused, tc.refuse == 1)
			}
			_, _, status, got := e.checkpoint(t)
			if status != "completed" {
				t.Fatalf("status %s after resume", status)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("variables after kill and resume:\n%v\nwant (uninterrupted):\n%v", got, want)
			}
			if obs := e.observations(t); !reflect.DeepEqual(obs, wantObs) {
				t.Errorf("observations %v, want each once: %v", obs, wantObs)
			}
		})
	}
}

// TestPlanDryRunCallsNothing: a dry run makes no upstream call; it does
// not even start the upstreams, so the memory file never appears.
func TestPlanDryRunCallsNothing(t *testing.T) {
	e := newPlanEnv(t)
	out, errOut, code := e.run("plan", "run", "crash", "--dry-run", "--var", "who=someone")
	if code != 0 {
		t.Fatalf("dry run: %s", errOut)
	}
	for _, want := range []string{
		`1. Create entity [memory__create_entities] {"entities":[{"entityType":"test","name":"someone","observations":[]}]}`,
		`"contents":["obs-b after <result of step 2: a.1.results.0.addedObservations.0>"]`,
		"Dry run: 9 tool calls would be made; none was.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(e.plans, "crash.run.json")); err == nil {
		t.Error("a dry run wrote a checkpoint")
	}
	if _, err := os.Stat(e.memFile); err == nil {
		t.Error("server-memory's file exists: the dry run reached the upstream")
	}
}

// TestPlanToolsOverMCP: a client of `weft serve` lists, shows, dry-runs and
// runs a saved plan through weft's built-in tools, with progress.
func TestPlanToolsOverMCP(t *testing.T) {
	e := newPlanEnv(t)
	s := e.serve()
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := everythingClient(progress).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any, meta mcp.Meta) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: %v", name, res.Content)
		}
		return res
	}
	text := func(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }
	if got := text(call("weft__plan_list", nil, nil)); !strings.Contains(got, `"id":"crash"`) {
		t.Errorf("plan list: %s", got)
	}
	if got := text(call("weft__plan_show", map[string]any{"id": "crash"}, nil)); !strings.Contains(got, "Plan: Crash safety (6 steps)") {
		t.Errorf("plan show: %s", got)
	}
	if got := text(call("weft__plan_dry_run", map[string]any{"id": "crash"}, nil)); !strings.Contains(got, "9 tool calls would be made; none was") {
		t.Errorf("plan dry run: %s", got)
	}
	if _, err := os.Stat(e.memFile); err == nil {
		t.Error("the dry run reached server-memory")
	}
	res := call("weft__plan_run", map[string]any{"id": "crash", "max_parallel": 2}, mcp.Meta{"progressToken": "run-1"})
	var out struct {
		Status    string         `json:"status"`
		Variables map[string]any `json:"variables"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil || out.Status != "completed" || out.Variables["graph"] == nil {
		t.Fatalf("plan run: %s (%v)", b, err)
	}
	// Notifications may still be in delivery when the result arrives: wait
	// for the one that reports all six steps.
	last, n := 0.0, 0
	timeout := time.After(20 * time.Second)
	for last < 6 {
		select {
		case p := <-progress:
			if p.ProgressToken != "run-1" {
				continue
			}
			if p.Progress < last {
				t.Errorf("progress went back from %v to %v", last, p.Progress)
			}
			last, n = p.Progress, n+1
		case <-timeout:
			t.Fatalf("%d progress notifications, the last at %v; want them to reach 6", n, last)
		}
	}
	if n == 0 || last != 6 {
		t.Errorf("%d progress notifications, last %v; want some, ending at 6", n, last)
	}
}
