package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDelegationKeys(t *testing.T) {
	tests := []struct {
		name, toml, wantErr string
		check               func(Delegation) bool
	}{
		{"defaults", "", "", func(d Delegation) bool {
			return d.ClaudeCommand == "claude" && strings.Join(d.Fallback, ",") == "claude,agent" && d.MaxTurns == 10 &&
				d.Timeout.Std() == 10*time.Minute && d.FailureThreshold == DefaultFailureThreshold
		}},
		{"set", "[breaker]\nfailure_threshold = 7\n[delegation]\nclaude_command = \"/bin/cc\"\nfallback = [\"agent\"]\nmax_turns = 4\n" +
			"timeout = \"5s\"\nmax_concurrent = 1\nallowed_tools = [\"mcp__weft__fake__*\"]\n", "", func(d Delegation) bool {
			return d.ClaudeCommand == "/bin/cc" && strings.Join(d.Fallback, ",") == "agent" && d.MaxTurns == 4 && d.Timeout.Std() == 5*time.Second &&
				d.MaxConcurrent == 1 && d.AllowedTools[0] == "mcp__weft__fake__*" && d.FailureThreshold == 7
		}},
		{"few turns", "[delegation]\nmax_turns = 2\n", "at least 3", nil},
		{"bad fallback", "[delegation]\nfallback = [\"gpt\"]\n", `"gpt"`, nil},
		{"unknown key", "[delegation]\nturns = 2\n", "max_concurrent", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeFile(t, filepath.Join(t.TempDir(), "weft.toml"), tt.toml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(cfg.Delegation) {
				t.Fatalf("delegation = %+v, err = %v", cfg.Delegation, err)
			}
		})
	}
}
