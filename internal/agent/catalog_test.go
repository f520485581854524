package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/toolset"
)

// A server added while step 1's LLM call is in flight is offered from
// the next iteration on, and not before.
func TestServerAddedMidRunAppearsNextIteration(t *testing.T) {
	tools := newFakeTools()
	a, srv := setup{limits: limits(nil)}.start(t, tools,
		call("fake__echo", `{"text":"a"}`),
		call("late__echo", `{"text":"b"}`),
		llmtest.Reply{Text: "done"},
	)
	srv.OnRequest(func(r llmtest.Request) {
		if r.Index == 0 {
			tools.addServer("late")
		}
	})
	res, err := a.Run(context.Background(), agent.Task{Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].HasTool("late__echo") || strings.Contains(reqs[0].Messages[0].Text, "- late:") {
		t.Error("the first request already offered the server added during it")
	}
	if !reqs[1].HasTool("late__echo") || !strings.Contains(reqs[1].Messages[0].Text, "- late: active") {
		t.Errorf("the second request lacks the new server: tools %v", reqs[1].Tools)
	}
	if res.Reason != agent.ReasonComplete || res.Steps[1].Actions[0].Observation != "late:b" {
		t.Fatalf("reason %s, steps %+v", res.Reason, res.Steps)
	}
}

// The system context names each server with its breaker state, and the
// resources and prompts by name.
func TestSystemContext(t *testing.T) {
	a, srv := setup{limits: limits(nil)}.start(t, newFakeTools(), llmtest.Reply{Text: "ok"})
	if _, err := a.Run(context.Background(), agent.Task{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	system := srv.Requests()[0].Messages[0]
	for _, want := range []string{"- fake: active, circuit breaker closed", "- flaky: active, circuit breaker open", "fake://fake/readme (what the fake server does)", "Prompts: fake__greet\n"} {
		if system.Role != "system" || !strings.Contains(system.Text, want) {
			t.Errorf("system context misses %q:\n%s", want, system.Text)
		}
	}
}

// For the agent: tools past the cap are not offered directly but stay
// reachable through the meta tools.
func TestToolCapWithMetaTools(t *testing.T) {
	tools := newFakeTools()
	for i := range 5 {
		tools.tools = append(tools.tools, toolset.Tool{Name: fmt.Sprintf("many__tool_%d", i), Description: "numbered", InputSchema: json.RawMessage(textSchema)})
	}
	a, srv := setup{limits: limits(nil), maxTools: 3}.start(t, tools,
		call(agent.SearchToolName, `{"query":"tool_4"}`),
		call(agent.CallToolName, `{"name":"many__tool_4","arguments":{"text":"x"}}`),
		llmtest.Reply{Text: "done"},
	)
	res, err := a.Run(context.Background(), agent.Task{Text: "use tool 4"})
	if err != nil {
		t.Fatal(err)
	}
	offered := srv.Requests()[0].Tools
	if len(offered) != 5 || offered[3] != agent.SearchToolName || offered[4] != agent.CallToolName {
		t.Fatalf("offered %v, want 3 tools and the two meta tools", offered)
	}
	if obs := res.Steps[0].Actions[0].Observation; !strings.Contains(obs, `"name":"many__tool_4"`) {
		t.Errorf("search found %s", obs)
	}
	if obs := res.Steps[1].Actions[0].Observation; obs != "many__tool_4:x" {
		t.Errorf("call through the meta tool observed %q", obs)
	}
}

// Totals are usage × price, attributed to the sender; without usage
// the tokens are estimated from characters.
func TestCostTotals(t *testing.T) {
	price := agent.Price{Input: 3, Output: 15}
	a, _ := setup{limits: limits(nil), price: price}.start(t, newFakeTools(),
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"a"}`}}, Usage: &llmtest.Usage{Input: 1200, Output: 80}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"b"}`}}, Usage: &llmtest.Usage{Input: 1500, Output: 40}},
		llmtest.Reply{Text: "done", Usage: &llmtest.Usage{Input: 1800, Output: 5}},
	)
	res, err := a.Run(context.Background(), agent.Task{Text: "go", Sender: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	want := (float64(1200+1500+1800)*3 + float64(80+40+5)*15) / 1e6
	tot := res.Totals
	if tot.InputTokens != 4500 || tot.OutputTokens != 125 || math.Abs(tot.USD-want) > 1e-12 || tot.Requests != 3 {
		t.Fatalf("totals %+v, want $%f for 4500/125 tokens", tot, want)
	}
	if math.Abs(tot.BySender["bob"]-want) > 1e-12 {
		t.Errorf("by sender %v", tot.BySender)
	}
	var sum float64
	for _, st := range res.Steps {
		if st.Sender != "bob" || st.Cost.Estimated {
			t.Errorf("step %d: sender %q estimated %v", st.Index, st.Sender, st.Cost.Estimated)
		}
		sum += st.Cost.USD
	}
	if math.Abs(sum-want) > 1e-12 {
		t.Errorf("steps sum to $%f, totals say $%f", sum, want)
	}
}

func TestCostEstimatedWithoutUsage(t *testing.T) {
	a, srv := setup{limits: limits(nil), price: agent.Price{Input: 1, Output: 1}}.start(t, newFakeTools(),
		llmtest.Reply{Text: strings.Repeat("x", 400)})
	res, err := a.Run(context.Background(), agent.Task{Text: "go"})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Steps[0].Cost
	body := srv.Requests()[0].Body
	if !c.Estimated || c.OutputTokens != 100 || c.InputTokens <= 0 || c.InputTokens > int64(len(body)) {
		t.Fatalf("cost %+v for a %d-byte request and a 400-character reply", c, len(body))
	}
	if !res.Totals.Estimated || !strings.Contains(printed(res), "tokens were estimated from characters") {
		t.Errorf("totals do not say the tokens were estimated: %+v", res.Totals)
	}
	if want := float64(c.InputTokens+c.OutputTokens) / 1e6; math.Abs(res.Totals.USD-want) > 1e-12 {
		t.Errorf("usd %f, want %f", res.Totals.USD, want)
	}
}
