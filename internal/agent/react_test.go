package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A tool call, its observation, then the answer, over each provider.
func TestTwoStepToolUsingAnswer(t *testing.T) {
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			tools := newFakeTools()
			a, srv := setup{wire: w.Wire, provider: w.Provider, limits: limits(nil)}.start(t, tools,
				llmtest.Reply{Text: "I will echo hi.", Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 100, Output: 20}},
				llmtest.Reply{Text: "The echo said fake:hi.", Usage: &llmtest.Usage{Input: 150, Output: 10}},
			)
			res, err := a.Run(context.Background(), agent.Task{Text: "echo hi", Sender: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != agent.ReasonComplete || res.Answer != "The echo said fake:hi." || res.Message != "" {
				t.Fatalf("reason %s answer %q message %q", res.Reason, res.Answer, res.Message)
			}
			if len(res.Steps) != 2 || res.Steps[0].Thought != "I will echo hi." || res.Steps[0].Actions[0].Observation != "fake:hi" {
				t.Fatalf("steps = %+v", res.Steps)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d LLM requests, want 2", len(reqs))
			}
			if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Role != "tool" || last.Text != "fake:hi" {
				t.Errorf("second request ends with %+v, want the tool result", last)
			}
			t.Logf("printed:\n%s", printed(res))
		})
	}
}

// Each termination reason, with the partial-result message and every
// completed step kept.
func TestTerminationReasons(t *testing.T) {
	cases := []struct {
		name      string
		limits    agent.Limits
		price     agent.Price
		script    []llmtest.Reply
		reason    agent.Reason
		completed int
		requests  int
		noops     []string
	}{
		{name: "depth limit", limits: limits(func(l *agent.Limits) { l.MaxDepth = 2 }), script: echoes(3, "fake__echo"),
			reason: agent.ReasonDepthLimit, completed: 2, requests: 2, noops: []string{"", ""}},
		// 1 token costs $0.001: step 1 spends $0.40 of $0.60, and step 2
		// would cost at least 300 input + 256 output tokens ($0.556).
		{name: "budget stops before a step that would exceed", limits: limits(func(l *agent.Limits) { l.MaxCostUSD = 0.6 }),
			price:  agent.Price{Input: 1000, Output: 1000},
			script: []llmtest.Reply{{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"a"}`}}, Usage: &llmtest.Usage{Input: 300, Output: 100}}, {Text: "never sent"}},
			reason: agent.ReasonBudget, completed: 1, requests: 1, noops: []string{""}},
		{name: "budget too small for the first step", limits: limits(func(l *agent.Limits) { l.MaxCostUSD = 0.0001 }),
			price: agent.Price{Input: 1000, Output: 1000}, script: []llmtest.Reply{{Text: "never sent"}},
			reason: agent.ReasonBudget, completed: 0, requests: 0},
		{name: "step timeout in the LLM", limits: limits(func(l *agent.Limits) { l.StepTimeout = 200 * time.Millisecond }),
			script: []llmtest.Reply{{Hold: true}}, reason: agent.ReasonStepTimeout, completed: 0, requests: 1},
		{name: "step timeout in a tool", limits: limits(func(l *agent.Limits) { l.StepTimeout = 300 * time.Millisecond }),
			script: []llmtest.Reply{call("fake__echo", `{"text":"a"}`), call("fake__block", `{}`)},
			reason: agent.ReasonStepTimeout, completed: 1, requests: 2, noops: []string{""}},
		{name: "no-op: no action", limits: limits(nil), script: repeat(3, llmtest.Reply{}),
			reason: agent.ReasonCircuitBreaker, completed: 3, requests: 3,
			noops: []string{agent.NoOpNoAction, agent.NoOpNoAction, agent.NoOpNoAction}},
		{name: "no-op: repeated action", limits: limits(nil), script: repeat(4, call("fake__echo", `{"text":"a"}`)),
			reason: agent.ReasonCircuitBreaker, completed: 4, requests: 4,
			noops: []string{"", agent.NoOpRepeatedAction, agent.NoOpRepeatedAction, agent.NoOpRepeatedAction}},
		{name: "no-op: observes nothing", limits: limits(nil), script: echoes(3, "fake__empty"),
			reason: agent.ReasonCircuitBreaker, completed: 3, requests: 3,
			noops: []string{agent.NoOpEmptyObservation, agent.NoOpEmptyObservation, agent.NoOpEmptyObservation}},
		{name: "no-op: same observation", limits: limits(nil), script: echoes(4, "fake__const"),
			reason: agent.ReasonCircuitBreaker, completed: 4, requests: 4,
			noops: []string{"", agent.NoOpSameObservation, agent.NoOpSameObservation, agent.NoOpSameObservation}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, srv := setup{limits: c.limits, price: c.price}.start(t, newFakeTools(), c.script...)
			res, err := a.Run(context.Background(), agent.Task{Text: "do it", Sender: "test"})
			if err != nil {
				t.Fatal(err)
			}
			out := printed(res)
			t.Logf("printed:\n%s", out)
			if res.Reason != c.reason || res.Completed != c.completed || len(res.Steps) != c.completed {
				t.Fatalf("reason %s, %d completed (%d steps); want %s, %d", res.Reason, res.Completed, len(res.Steps), c.reason, c.completed)
			}
			want := fmt.Sprintf("Planning terminated: %s. Completed %d of %d planned steps. Partial results below.",
				c.reason, c.completed, c.limits.MaxDepth)
			if res.Message != want || !strings.Contains(out, want) {
				t.Errorf("message %q, want %q", res.Message, want)
			}
			if n := len(srv.Requests()); n != c.requests {
				t.Errorf("%d LLM requests, want %d", n, c.requests)
			}
			for i, st := range res.Steps {
				if st.NoOp != c.noops[i] {
					t.Errorf("step %d no-op %q, want %q", i+1, st.NoOp, c.noops[i])
				}
			}
			if res.Totals.USD > c.limits.MaxCostUSD {
				t.Errorf("spent $%f of a $%f budget", res.Totals.USD, c.limits.MaxCostUSD)
			}
		})
	}
}
