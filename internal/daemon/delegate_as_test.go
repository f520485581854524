package daemon

import (
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

func TestCostLabel(t *testing.T) {
	for in, want := range map[string]string{"": "default", "coder": "coder"} {
		if got := costLabel(in); got != want {
			t.Errorf("costLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
