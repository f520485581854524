//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// [delegation] model, excluded_tools and max_tokens reach the real Claude
// Code: every model request names the model and carries the reply cap
// (Claude Code reads it from CLAUDE_CODE_MAX_OUTPUT_TOKENS), the excluded
// tool is not offered while its server's other tools are, and calling it
// anyway fails inside Claude Code. `weft delegate --json` reports the cost.
func TestDelegateSettingsReachClaude(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__weft__fake__echo", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "The echo was refused."},
	)
	e := claudeDelegateEnv(t, srv, "model = \"claude-e2e-model\"\nexcluded_tools = [\"mcp__weft__fake__echo\"]\nmax_tokens = 1234\n")
	out, errOut, code := e.run("delegate", "echo hi", "--json")
	var res struct {
		Answer  string
		CostUSD float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.Answer != "The echo was refused." || res.CostUSD <= 0 {
		t.Fatalf("exit %d, stdout %q (%v), want the answer and a cost as JSON\nstderr:\n%s", code, out, err, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Model != "claude-e2e-model" || body.MaxTokens != 1234 {
			t.Errorf("request %d: model %q, max_tokens %d (%v), want claude-e2e-model and 1234", r.Index, r.Model, body.MaxTokens, err)
		}
	}
	// Claude Code lists MCP tools as deferred, by name, in the request: the
	// server's other tools are there, the excluded one is not.
	first := string(reqs[0].Body)
	if strings.Contains(first, "mcp__weft__fake__echo") || !strings.Contains(first, "mcp__weft__fake__sleep") {
		t.Errorf("the first request offers echo: %t, sleep: %t; want only sleep",
			strings.Contains(first, "mcp__weft__fake__echo"), strings.Contains(first, "mcp__weft__fake__sleep"))
	}
	msgs := reqs[1].Messages
	if last := msgs[len(msgs)-1]; last.Role != "tool" || !strings.Contains(last.Text, "No such tool available: mcp__weft__fake__echo") {
		t.Errorf("calling the excluded tool gave %+v, want Claude Code's refusal", last)
	}
}

// A delegation through `weft serve` (weft__delegate, the real Claude Code)
// returns Claude Code's total_cost_usd as cost_usd, and /metrics counts
// exactly that under agent "default"; promtool accepts the output.
func TestDelegateCostReachesMetrics(t *testing.T) {
	promtool := testutil.SystemTool(t, "promtool", "prometheus")
	srv := llmtest.New(t, llmtest.Anthropic,
		llmtest.Reply{Text: "Let me echo.", Calls: []llmtest.Call{{Name: "mcp__weft__fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 1000, Output: 200}},
		llmtest.Reply{Text: "The echo said fake:hi.", Usage: &llmtest.Usage{Input: 1500, Output: 100}},
	)
	e := claudeDelegateEnv(t, srv, "model = \"claude-sonnet-4-5\"\n")
	s := e.serve()
	metricsURL := strings.TrimSuffix(s.url, "/mcp") + "/metrics"
	if _, body := get(t, metricsURL, nil); strings.Contains(body, "weft_agent_cost_usd_total{") {
		t.Fatalf("cost counted before any delegation:\n%s", grepLines(body, "cost"))
	}
	cs := connect(t, s.url, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "echo hi"}})
	if err != nil || res.IsError {
		t.Fatalf("weft__delegate: %v %+v\nweft's stderr:\n%s", err, res, s.stderr.String())
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		Answer  string
		CostUSD float64 `json:"cost_usd"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Answer != "The echo said fake:hi." || out.CostUSD <= 0 {
		t.Fatalf("structured result %s, want the answer and Claude Code's cost", b)
	}
	code, body := get(t, metricsURL, nil)
	if got, ok := metricValue(body, `weft_agent_cost_usd_total{agent="default"}`); code != 200 || !ok || got != out.CostUSD {
		t.Fatalf("/metrics (%d) counts %v (found %t), want the delegation's cost_usd %v:\n%s", code, got, ok, out.CostUSD, grepLines(body, "cost"))
	}
	t.Logf("cost_usd %v; metrics: %s", out.CostUSD, grepLines(body, "weft_agent_cost_usd_total{"))
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if msg, err := check.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, msg)
	}
}

// metricValue returns the value of the series named exactly series in a
// Prometheus text exposition.
func metricValue(body, series string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// `weft delegate --agent coder` with the real Claude Code: the delegated
// Claude Code reaches weft as coder, so it is offered coder's view of the
// tools only (echo is denied to coder, sleep is not), and its model
// requests carry coder's [delegation] model.
func TestDelegateAsAgentThroughClaude(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic, llmtest.Reply{Text: "Done as coder."})
	e := claudeDelegateEnv(t, srv, "model = \"global-model\"\n\n[agents.coder]\nservers = [\"fake\"]\n"+
		"denied_tools = [\"fake__echo\"]\n[agents.coder.delegation]\nmodel = \"coder-model\"\n")
	out, errOut, code := e.run("delegate", "--agent", "coder", "look around")
	if code != 0 || strings.TrimSpace(out) != "Done as coder." {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("Claude Code made no model request")
	}
	if reqs[0].Model != "coder-model" {
		t.Errorf("model %q, want coder's coder-model", reqs[0].Model)
	}
	first := string(reqs[0].Body)
	if strings.Contains(first, "mcp__weft__fake__echo") || !strings.Contains(first, "mcp__weft__fake__sleep") {
		t.Errorf("Claude Code was offered echo: %t, sleep: %t; want coder's view: sleep only",
			strings.Contains(first, "mcp__weft__fake__echo"), strings.Contains(first, "mcp__weft__fake__sleep"))
	}
}
