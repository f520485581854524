package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const agentExample = `
[llm]
provider = "anthropic"
model = "claude-sonnet-4-5-20250929"
base_url = "http://127.0.0.1:9/"
api_key_env = "MY_KEY"

[router.planning]
strategy = "plan_and_execute"
max_planning_depth = 4
max_planning_cost_usd = 0.25
planning_step_timeout = "90s"
circuit_breaker_threshold = 2

[prices."local-model"]
input = 0.5
output = 1.5
`

func TestLoadAgentTables(t *testing.T) {
	dir := isolate(t)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), agentExample))
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agent
	if a.LLM != (LLM{Provider: "anthropic", Model: "claude-sonnet-4-5-20250929", BaseURL: "http://127.0.0.1:9/", APIKeyEnv: "MY_KEY"}) {
		t.Errorf("llm = %+v", a.LLM)
	}
	want := Planning{Strategy: StrategyPlanAndExecute, MaxPlanningDepth: 4, MaxPlanningCostUSD: 0.25,
		PlanningStepTimeout: Duration(90 * time.Second), CircuitBreakerThreshold: 2, MaxReplans: DefaultMaxReplans}
	if a.Planning != want {
		t.Errorf("planning = %+v, want %+v", a.Planning, want)
	}
	if p, ok := a.PriceOf("local-model"); !ok || p != (Price{0.5, 1.5}) {
		t.Errorf("configured price = %+v %v", p, ok)
	}
	// A dated snapshot takes its family's default price.
	if p, ok := a.PriceOf("claude-sonnet-4-5-20250929"); !ok || p != (Price{3, 15}) {
		t.Errorf("default price by prefix = %+v %v", p, ok)
	}
	if _, ok := a.PriceOf("llama3.2"); ok {
		t.Error("an unknown model should have no price")
	}
}

func TestAgentDefaults(t *testing.T) {
	dir := isolate(t)
	cfg, err := Load(filepath.Join(dir, "weft.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Agent.Planning
	if p.Strategy != StrategyReact || p.MaxPlanningDepth != 10 || p.MaxPlanningCostUSD != 1.0 ||
		p.PlanningStepTimeout.Std() != 60*time.Second || p.CircuitBreakerThreshold != 3 {
		t.Errorf("defaults = %+v", p)
	}
	if cfg.Agent.LLM.Provider != "openai" {
		t.Errorf("default provider = %q", cfg.Agent.LLM.Provider)
	}
}

func TestAgentConfigErrors(t *testing.T) {
	cases := []struct{ body, says string }{
		{"[llm]\nprovider = \"gemini\"\n", `llm.provider is "gemini"`},
		{"[router.planning]\nstrategy = \"dfs\"\n", "use react or plan_and_execute"},
		{"[router.planning]\nplanning_step_timeout = \"soon\"\n", "write it like"},
		{"[router.planning]\nmax_planning_depth = -1\n", "must be positive"},
		{"[router.planning]\ndepth = 3\n", "known keys there: strategy, max_planning_depth"},
		{"[prices.m]\ninput = -1\n", "cannot be negative"},
	}
	for _, c := range cases {
		dir := isolate(t)
		_, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), c.body))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: err = %v, want mention of %q", c.body, err, c.says)
		}
	}
}

// The example of docs/guides/configuration.md's agent section loads and
// means what the guide says.
func TestConfigurationGuideAgentExample(t *testing.T) {
	block := guideExample(t, "## The agent:")
	dir := isolate(t)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), block))
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agent
	if a.LLM.Model != "llama3.2" || a.LLM.MaxRetries != 2 || a.Planning != DefaultAgent().Planning {
		t.Errorf("guide example loads as %+v", a)
	}
	if p, ok := a.PriceOf("llama3.2"); !ok || p != (Price{}) {
		t.Errorf("llama3.2 price = %+v %v", p, ok)
	}
}
