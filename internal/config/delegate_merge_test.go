package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDelegationOverrideKeys(t *testing.T) {
	tests := []struct {
		name, toml, wantErr string
	}{
		{"set", "[delegation]\nmodel = \"sonnet\"\nexcluded_tools = [\"Bash\", \"mcp__weft__fake__echo\"]\nmax_tokens = 2048\n", ""},
		{"negative max_tokens", "[delegation]\nmax_tokens = -1\n", "delegation.max_tokens is -1; use a positive number"},
		{"model with spaces", "[delegation]\nmodel = \" sonnet\"\n", `delegation.model is " sonnet"; name a model`},
		{"model as a flag", "[delegation]\nmodel = \"--help\"\n", `delegation.model is "--help"`},
		{"empty excluded tool", "[delegation]\nexcluded_tools = [\"\"]\n", `delegation.excluded_tools has ""; give one Claude Code tool pattern per entry`},
		{"two tools in one entry", "[delegation]\nexcluded_tools = [\"Bash,Edit\"]\n", `excluded_tools has "Bash,Edit"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeFile(t, filepath.Join(t.TempDir(), "weft.toml"), tt.toml))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line with %q", err, tt.wantErr)
				}
				return
			}
			d := cfg.Delegation
			if err != nil || d.Model != "sonnet" || strings.Join(d.ExcludedTools, ",") != "Bash,mcp__weft__fake__echo" || d.MaxTokens != 2048 ||
				d.MaxTurns != DefaultDelegationMaxTurns {
				t.Fatalf("delegation = %+v, err = %v", d, err)
			}
		})
	}
}

// An override replaces exactly the fields it sets; its zero fields keep
// the global values.
func TestDelegationMergeFieldByField(t *testing.T) {
	global := DefaultDelegation()
	global.Model = "sonnet"
	global.ExcludedTools = []string{"Bash"}
	if got := global.Merge(Delegation{}); !reflect.DeepEqual(got, global) {
		t.Errorf("an empty override changed the global table:\n%+v\nwant\n%+v", got, global)
	}
	over := Delegation{Model: "opus", MaxTokens: 1000, Timeout: Duration(time.Minute), Fallback: []string{"agent"}}
	got := global.Merge(over)
	want := global
	want.Model, want.MaxTokens, want.Timeout, want.Fallback = "opus", 1000, Duration(time.Minute), []string{"agent"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged = %+v\nwant %+v", got, want)
	}
	if global.Model != "sonnet" {
		t.Errorf("Merge changed its receiver: model %q", global.Model)
	}
}

// The delegation example of docs/guides/configuration.md loads and means
// what the guide says; the rest keeps its defaults.
func TestConfigurationGuideDelegationExample(t *testing.T) {
	block := guideExample(t, "## Delegation:")
	cfg, err := Load(writeFile(t, filepath.Join(isolate(t), "weft.toml"), block))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultDelegation()
	want.Model, want.ExcludedTools, want.MaxTokens = "sonnet", []string{"Bash", "Write"}, 8192
	if !reflect.DeepEqual(cfg.Delegation, want) {
		t.Errorf("the guide's [delegation] loads as %+v\nwant %+v", cfg.Delegation, want)
	}
}
