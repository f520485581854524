package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// A delegation as an agent carries Claude Code's reported cost in its
// result and adds it to the cost counter under the agent's name; the
// override's model reaches Claude Code, and its weft runs as the agent.
func TestDelegateAsCountsCostAndRunsAsAgent(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_MODE", "ok")
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	path := writeConfig(t, "[delegation]\nclaude_command = \""+testutil.FakeClaudeBinary(t)+"\"\nfallback = [\"claude\"]\nmodel = \"sonnet\"\n")
	d := newDaemon(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, agent := range []string{"coder", ""} {
		res, err := d.DelegateAs(ctx, gateway.DelegateArgs{Task: "say hi"}, agent, config.Delegation{Model: "opus"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var data struct {
			CostUSD float64 `json:"cost_usd"`
		}
		if err := json.Unmarshal(res.Data, &data); err != nil || data.CostUSD != 0.0375 {
			t.Fatalf("structured result %s, want cost_usd 0.0375", res.Data)
		}
		wantArgs := `"args":["mcp-server","--settle","15s","--agent","coder",`
		if agent == "" {
			wantArgs = `"args":["mcp-server","--settle","15s","--config",`
		}
		if !strings.Contains(res.Answer, "--model opus") || !strings.Contains(res.Answer, wantArgs) {
			t.Errorf("Claude Code ran with %s, want --model opus and %s", res.Answer, wantArgs)
		}
	}
	body := scrape(t, d)
	for _, want := range []string{`weft_agent_cost_usd_total{agent="coder"} 0.0375`, `weft_agent_cost_usd_total{agent="default"} 0.0375`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

// The fallback agent's priced tokens are the delegation's cost, counted
// under the agent it ran as.
func TestDelegateFallbackAgentCost(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 1000, Output: 100}},
		llmtest.Reply{Text: "The agent heard fake:hi.", Usage: &llmtest.Usage{Input: 2000, Output: 50}},
	)
	t.Setenv("LLMTEST_KEY", "sk-test")
	path := writeConfig(t, "[agents.coder]\n\n[llm]\nprovider = \"openai\"\nmodel = \"test-model\"\nbase_url = \""+srv.URL()+"\"\napi_key_env = \"LLMTEST_KEY\"\n\n"+
		"[prices.\"test-model\"]\ninput = 2.0\noutput = 10.0\n\n"+
		"[delegation]\nclaude_command = \"/nonexistent/claude\"\nfallback = [\"claude\", \"agent\"]\n\n"+
		"[tools.mcp_servers.fake]\ntarget = \""+testutil.FakeServerBinary(t)+"\"\n")
	d := newDaemon(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := d.DelegateAs(ctx, gateway.DelegateArgs{Task: "echo hi"}, "coder", config.Delegation{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := (3000*2.0 + 150*10.0) / 1e6
	var data struct {
		Delegate string
		CostUSD  float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal(res.Data, &data); err != nil || data.Delegate != "agent" || math.Abs(data.CostUSD-want) > 1e-12 {
		t.Fatalf("structured result %s, want the agent's answer costing %g", res.Data, want)
	}
	if body := scrape(t, d); !strings.Contains(body, fmt.Sprintf(`weft_agent_cost_usd_total{agent="coder"} %g`, data.CostUSD)) {
		t.Errorf("/metrics lacks the agent's cost %g under coder:\n%s", data.CostUSD, body)
	}
}
