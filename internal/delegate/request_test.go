package delegate

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"
)

// The per-call settings reach Claude Code's command line, environment and
// MCP config; a zero field keeps the Runner's.
func TestRequestSettingsReachClaude(t *testing.T) {
	tests := []struct {
		name      string
		cfg       func(*Config)
		req       Request
		want, not []string
	}{
		{"runner defaults", func(c *Config) {
			c.Model, c.ExcludedTools, c.MaxTokens = "sonnet", []string{"Bash", "Edit"}, 2048
		}, Request{Task: "t"},
			[]string{"--model sonnet", "--disallowedTools Bash,Edit", "max_tokens=2048 ", `"args":["mcp-server","--settle","15s","--config","/etc/weft.toml"]`},
			[]string{"--agent"}},
		{"request overrides", func(c *Config) { c.Model, c.MaxTokens = "sonnet", 2048 },
			Request{Task: "t", Agent: "coder", Model: "opus", ExcludedTools: []string{"mcp__weft__fake__echo"}, MaxTokens: 512},
			[]string{"--model opus", "--disallowedTools mcp__weft__fake__echo", "max_tokens=512 ",
				`"args":["mcp-server","--settle","15s","--agent","coder","--config","/etc/weft.toml"]`},
			[]string{"sonnet"}},
		{"none set", nil, Request{Task: "t"}, []string{"max_tokens= "}, []string{"--model", "--disallowedTools", "--agent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := runner(t, "ok", tt.cfg).Run(context.Background(), tt.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Answer, w) {
					t.Errorf("Claude Code did not get %q:\n%s", w, res.Answer)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(res.Answer, n) {
					t.Errorf("Claude Code got %q:\n%s", n, res.Answer)
				}
			}
		})
	}
}

// A request's own command, chain and timeout replace the Runner's.
func TestRequestCommandChainAndTimeout(t *testing.T) {
	r := runner(t, "hang", func(c *Config) { c.Command = "/nonexistent/claude" })
	_, err := r.Run(context.Background(), Request{Task: "t", Command: testutil.FakeClaudeBinary(t), Timeout: 200 * time.Millisecond}, nil)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("err = %v, want the request's command to hang into the request's timeout", err)
	}
	_, err = r.Run(context.Background(), Request{Task: "t", Chain: []string{"gpt"}}, nil)
	if err == nil || !strings.Contains(err.Error(), `delegation fallback "gpt" is unknown`) {
		t.Fatalf("err = %v, want the unknown delegate named", err)
	}
}

// Claude Code's total_cost_usd is the result's cost and is reported to
// ClaudeSpent with the agent name, a failed attempt's too; the fallback
// agent's cost adds to it.
func TestClaudeCostReported(t *testing.T) {
	type spend struct {
		agent string
		usd   float64
	}
	var spent []spend
	r := runner(t, "ok", func(c *Config) { c.ClaudeSpent = func(a string, usd float64) { spent = append(spent, spend{a, usd}) } })
	res, err := r.Run(context.Background(), Request{Task: "t", Agent: "coder"}, nil)
	if err != nil || res.CostUSD != 0.0375 {
		t.Fatalf("res = %+v, err = %v, want cost 0.0375", res, err)
	}
	r = runner(t, "maxturns", func(c *Config) {
		c.Chain = []string{Claude, Agent}
		c.ClaudeSpent = func(a string, usd float64) { spent = append(spent, spend{a, usd}) }
		c.Agent = func(context.Context, AgentTask, func(Event)) (AgentAnswer, error) {
			return AgentAnswer{Text: "ok", CostUSD: 0.25}, nil
		}
	})
	res, err = r.Run(context.Background(), Request{Task: "t"}, nil)
	if err != nil || res.CostUSD != 0.375 || res.Delegate != Agent {
		t.Fatalf("res = %+v, err = %v, want the agent's answer costing 0.125 + 0.25", res, err)
	}
	if len(spent) != 2 || spent[0] != (spend{"coder", 0.0375}) || spent[1] != (spend{"", 0.125}) {
		t.Errorf("ClaudeSpent saw %v, want coder 0.0375 then the failed attempt's 0.125", spent)
	}
}
