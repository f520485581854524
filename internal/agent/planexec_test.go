package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/toolset"
)

// fakeRunner validates plans by their JSON shape and tool names, and runs
// them from a script of outcomes: run i fails the steps named in fail[i].
type fakeRunner struct {
	mu    sync.Mutex
	fail  []map[int]bool
	plans []json.RawMessage
}

type fakePlan struct {
	Title string `json:"title"`
	Steps []struct {
		Index     int    `json:"index"`
		Title     string `json:"title"`
		ToolCalls []struct {
			Name string `json:"name"`
		} `json:"tool_calls"`
	} `json:"steps"`
}

func (f *fakeRunner) Validate(raw json.RawMessage, tools []toolset.Tool) (agent.PlanInfo, error) {
	var p fakePlan
	if err := json.Unmarshal(raw, &p); err != nil || len(p.Steps) == 0 {
		return agent.PlanInfo{}, fmt.Errorf("not a plan: %v", err)
	}
	info := agent.PlanInfo{Title: p.Title}
	for _, s := range p.Steps {
		for _, c := range s.ToolCalls {
			if _, ok := toolset.Find(tools, c.Name); !ok {
				return agent.PlanInfo{}, fmt.Errorf("step %d: unknown tool %q", s.Index, c.Name)
			}
		}
		info.Steps = append(info.Steps, agent.PlanStep{Index: s.Index, Title: s.Title})
	}
	return info, nil
}

func (f *fakeRunner) Run(ctx context.Context, raw json.RawMessage, caller toolset.Caller) (*agent.PlanOutcome, error) {
	f.mu.Lock()
	run := len(f.plans)
	f.plans = append(f.plans, raw)
	f.mu.Unlock()
	var p fakePlan
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	out := &agent.PlanOutcome{}
	failed := false
	for _, s := range p.Steps {
		r := agent.PlanStepResult{Index: s.Index, Title: s.Title, Tools: []string{s.ToolCalls[0].Name}}
		switch {
		case failed:
			r.Status = agent.PlanStepSkipped
		case run < len(f.fail) && f.fail[run][s.Index]:
			r.Status, r.Error, failed = agent.PlanStepFailed, "upstream said no", true
		default:
			res, err := caller.CallTool(ctx, s.ToolCalls[0].Name, map[string]any{"text": s.Title})
			if err != nil {
				return nil, err
			}
			r.Status, r.Result = agent.PlanStepCompleted, res.Content[0].(*mcp.TextContent).Text
		}
		out.Steps = append(out.Steps, r)
	}
	return out, nil
}

func (f *fakeRunner) runs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.plans)
}

func planReply(titles ...string) llmtest.Reply {
	var steps []string
	for i, t := range titles {
		steps = append(steps, fmt.Sprintf(`{"index":%d,"title":%q,"tool_calls":[{"name":"fake__echo","args":{"text":%q}}]}`, i+1, t, t))
	}
	return llmtest.Reply{Text: "```json\n{\"title\":\"p\",\"steps\":[" + strings.Join(steps, ",") + "]}\n```"}
}

// A failed step makes the agent re-plan the remaining work exactly
// once, and the new plan's success completes the run.
func TestPlanAndExecuteReplansOnceAfterFailure(t *testing.T) {
	runner := &fakeRunner{fail: []map[int]bool{{2: true}}}
	a, srv := setup{limits: limits(nil), plans: runner, strategy: agent.StrategyPlanAndExecute}.start(t, newFakeTools(),
		planReply("fetch", "transform", "store"),
		planReply("transform again", "store"),
		llmtest.Reply{Text: "All stored."},
	)
	res, err := a.Run(context.Background(), agent.Task{Text: "fetch, transform, store"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("printed:\n%s", printed(res))
	if res.Reason != agent.ReasonComplete || res.Answer != "All stored." || res.Replans != 1 || runner.runs() != 2 {
		t.Fatalf("reason %s answer %q replans %d runs %d", res.Reason, res.Answer, res.Replans, runner.runs())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d LLM requests, want plan, re-plan, answer", len(reqs))
	}
	replan := reqs[1].Messages[len(reqs[1].Messages)-1].Text
	if !strings.Contains(replan, "Step 2 (transform) failed: upstream said no") || !strings.Contains(replan, "step 1 (fetch): fake:fetch") {
		t.Errorf("re-plan request:\n%s", replan)
	}
	if res.Completed != 3 || res.Planned != 3 {
		t.Errorf("completed %d of %d, want 3 of 3 (1 from the first plan, 2 from the second)", res.Completed, res.Planned)
	}
}

// Re-plans are bounded; a plan that keeps failing ends the run with
// the partial-result message.
func TestPlanAndExecuteReplanLimit(t *testing.T) {
	runner := &fakeRunner{fail: []map[int]bool{{2: true}, {1: true}}}
	l := limits(func(l *agent.Limits) { l.MaxReplans = 1 })
	a, srv := setup{limits: l, plans: runner, strategy: agent.StrategyPlanAndExecute}.start(t, newFakeTools(),
		planReply("a", "b"), planReply("b again"), llmtest.Reply{Text: "never asked"})
	res, err := a.Run(context.Background(), agent.Task{Text: "a then b"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("printed:\n%s", printed(res))
	want := "Planning terminated: replan_limit. Completed 1 of 2 planned steps. Partial results below."
	if res.Reason != agent.ReasonReplanLimit || res.Message != want || runner.runs() != 2 || len(srv.Requests()) != 2 {
		t.Fatalf("reason %s message %q runs %d requests %d", res.Reason, res.Message, runner.runs(), len(srv.Requests()))
	}
}

// An invalid plan (unknown tool) is sent back to the model as a re-plan,
// and never run.
func TestPlanAndExecuteInvalidPlanIsReplanned(t *testing.T) {
	runner := &fakeRunner{}
	a, srv := setup{limits: limits(nil), plans: runner, strategy: agent.StrategyPlanAndExecute}.start(t, newFakeTools(),
		llmtest.Reply{Text: `{"title":"p","steps":[{"index":1,"title":"x","tool_calls":[{"name":"nope__tool"}]}]}`},
		planReply("x"), llmtest.Reply{Text: "ok"})
	res, err := a.Run(context.Background(), agent.Task{Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != agent.ReasonComplete || runner.runs() != 1 || res.Replans != 1 {
		t.Fatalf("reason %s runs %d replans %d", res.Reason, runner.runs(), res.Replans)
	}
	if got := srv.Requests()[1].Messages; !strings.Contains(got[len(got)-1].Text, `unknown tool "nope__tool"`) {
		t.Errorf("re-plan request does not say why: %+v", got[len(got)-1])
	}
}

func TestPlanAndExecuteWithoutRunner(t *testing.T) {
	a, _ := setup{limits: limits(nil), strategy: agent.StrategyPlanAndExecute}.start(t, newFakeTools())
	_, err := a.Run(context.Background(), agent.Task{Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "--strategy react") {
		t.Fatalf("err = %v", err)
	}
}

// Create: the model's draft is validated, an invalid one is sent back,
// and nothing runs.
func TestWritePlan(t *testing.T) {
	runner := &fakeRunner{}
	a, srv := setup{limits: limits(nil), plans: runner}.start(t, newFakeTools(),
		llmtest.Reply{Text: `{"title":"p","steps":[{"index":1,"title":"x","tool_calls":[{"name":"nope__tool"}]}]}`},
		planReply("fetch", "store"))
	raw, res, err := a.WritePlan(context.Background(), agent.Task{Text: "fetch then store"})
	if err != nil {
		t.Fatal(err)
	}
	var p fakePlan
	if json.Unmarshal(raw, &p) != nil || len(p.Steps) != 2 || res.Reason != agent.ReasonComplete || res.Replans != 1 {
		t.Fatalf("plan %s, result %+v", raw, res)
	}
	if runner.runs() != 0 || len(srv.Requests()) != 2 {
		t.Errorf("%d runs, %d LLM requests; want 0 and 2", runner.runs(), len(srv.Requests()))
	}
}

// In plan_and_execute: a plan whose steps (and the answer after them)
// would pass the depth limit is not run.
func TestPlanAndExecuteDepthLimit(t *testing.T) {
	runner := &fakeRunner{}
	l := limits(func(l *agent.Limits) { l.MaxDepth = 3 })
	a, _ := setup{limits: l, plans: runner, strategy: agent.StrategyPlanAndExecute}.start(t, newFakeTools(),
		planReply("a", "b", "c"))
	res, err := a.Run(context.Background(), agent.Task{Text: "a, b, c"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Planning terminated: depth_limit. Completed 0 of 3 planned steps. Partial results below."
	if res.Reason != agent.ReasonDepthLimit || res.Message != want || runner.runs() != 0 {
		t.Fatalf("reason %s message %q runs %d", res.Reason, res.Message, runner.runs())
	}
}
