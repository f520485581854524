package daemon

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
)

// An agent's override replaces the global settings it sets; the caller's
// own allowed tools and turns win over both.
func TestDelegationRequestMergesOverride(t *testing.T) {
	global := config.DefaultDelegation()
	global.Model, global.ExcludedTools, global.MaxTokens = "sonnet", []string{"Bash"}, 4096
	tests := []struct {
		name     string
		agent    string
		override config.Delegation
		in       gateway.DelegateArgs
		want     delegate.Request
	}{
		{"global", "", config.Delegation{}, gateway.DelegateArgs{Task: "t", Depth: 1},
			delegate.Request{Task: "t", Depth: 1, AllowedTools: []string{"mcp__weft__*"}, MaxTurns: 10, Command: "claude",
				Chain: []string{"claude", "agent"}, Timeout: 10 * time.Minute, Model: "sonnet", ExcludedTools: []string{"Bash"}, MaxTokens: 4096}},
		{"agent override", "coder", config.Delegation{Model: "opus", ExcludedTools: []string{"Edit"}, MaxTurns: 5, Fallback: []string{"claude"}},
			gateway.DelegateArgs{Task: "t"},
			delegate.Request{Task: "t", Agent: "coder", AllowedTools: []string{"mcp__weft__*"}, MaxTurns: 5, Command: "claude",
				Chain: []string{"claude"}, Timeout: 10 * time.Minute, Model: "opus", ExcludedTools: []string{"Edit"}, MaxTokens: 4096}},
		{"caller's arguments", "coder", config.Delegation{AllowedTools: []string{"mcp__weft__fake__*"}, MaxTurns: 5},
			gateway.DelegateArgs{Task: "t", AllowedTools: []string{"mcp__weft__fake__echo"}, MaxTurns: 3},
			delegate.Request{Task: "t", Agent: "coder", AllowedTools: []string{"mcp__weft__fake__echo"}, MaxTurns: 3, Command: "claude",
				Chain: []string{"claude", "agent"}, Timeout: 10 * time.Minute, Model: "sonnet", ExcludedTools: []string{"Bash"}, MaxTokens: 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := delegationRequest(global, tt.agent, tt.override, tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("request = %+v\nwant      %+v", got, tt.want)
			}
		})
	}
}

// After a reload clears a global [delegation] key, an agent's delegation
// goes without it too, not back to the value weft started with.
func TestDelegationFollowsReloadedConfig(t *testing.T) {
	load := func(body string) *config.Config {
		t.Helper()
		path := filepath.Join(t.TempDir(), "weft.toml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	agent := "[agents.x]\nservers = []\n[agents.x.delegation]\nmax_turns = 5\n"
	started := load("[delegation]\nmodel = \"sonnet\"\n" + agent)
	now := load(agent)
	g := &delegator{d: &Daemon{cfg: now}, cfg: started}
	req := g.request("x", now.Agents["x"].Delegation, gateway.DelegateArgs{Task: "t"})
	if req.Model != "" || req.MaxTurns != 5 {
		t.Errorf("x's delegation after the reload: model %q, max_turns %d; want no model (cleared) and 5 (x's own)", req.Model, req.MaxTurns)
	}
}

func TestCostLabel(t *testing.T) {
	for in, want := range map[string]string{"": "default", "coder": "coder"} {
		if got := costLabel(in); got != want {
			t.Errorf("costLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
