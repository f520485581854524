package config

import (
	"math"
	"sort"
	"strings"
	"time"
)

// Agent defaults.
const (
	StrategyReact          = "react"
	StrategyPlanAndExecute = "plan_and_execute"

	DefaultPlanningDepth    = 10
	DefaultPlanningCostUSD  = 1.0
	DefaultPlanningTimeout  = 60 * time.Second
	DefaultNoOpThreshold    = 3
	DefaultMaxReplans       = 2
	DefaultLLMProvider      = "openai"
	defaultPlanningStrategy = StrategyReact
)

// LLM is the [llm] table: which chat model the agent drives.
type LLM struct {
	// Provider is openai (any OpenAI-compatible server) or anthropic.
	Provider string `toml:"provider"`
	Model    string `toml:"model"`
	// BaseURL is the API root, e.g. http://127.0.0.1:11434/v1 for Ollama;
	// empty means the provider's public endpoint.
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable holding the API key.
	APIKeyEnv string `toml:"api_key_env"`
	// MaxTokens bounds each reply (0: 4096).
	MaxTokens int `toml:"max_tokens"`
	// MaxRetries after a 429, 5xx or connection error (0: 2; -1: none).
	MaxRetries int `toml:"max_retries"`
}

// Planning is the [router.planning] table: the agent's strategy and guard
// rails.
type Planning struct {
	Strategy                string   `toml:"strategy"`
	MaxPlanningDepth        int      `toml:"max_planning_depth"`
	MaxPlanningCostUSD      float64  `toml:"max_planning_cost_usd"`
	PlanningStepTimeout     Duration `toml:"planning_step_timeout"`
	CircuitBreakerThreshold int      `toml:"circuit_breaker_threshold"`
	// MaxReplans bounds how often plan_and_execute re-plans after a failure.
	MaxReplans int `toml:"max_replans"`
}

// Router is the [router] table; only planning lives there for now.
type Router struct {
	Planning Planning `toml:"planning"`
}

// Price is what a model costs in USD per million tokens ([prices."MODEL"]).
type Price struct {
	Input  float64 `toml:"input"`
	Output float64 `toml:"output"`
}

// Agent gathers what the agent runtime reads from the config.
type Agent struct {
	LLM      LLM
	Planning Planning
	// Prices holds the default price table, overridden per model by
	// [prices."MODEL"] entries.
	Prices map[string]Price
}

// defaultPrices are list prices (USD per million input/output tokens) of
// common models; a [prices] entry overrides them. Local models cost 0.
var defaultPrices = map[string]Price{
	"gpt-4o":            {2.5, 10},
	"gpt-4o-mini":       {0.15, 0.6},
	"gpt-4.1":           {2, 8},
	"gpt-4.1-mini":      {0.4, 1.6},
	"gpt-4.1-nano":      {0.1, 0.4},
	"gpt-5":             {1.25, 10},
	"gpt-5-mini":        {0.25, 2},
	"gpt-5-nano":        {0.05, 0.4},
	"o3":                {2, 8},
	"o4-mini":           {1.1, 4.4},
	"claude-opus-4":     {15, 75},
	"claude-opus-4-1":   {15, 75},
	"claude-opus-4-5":   {5, 25},
	"claude-sonnet-4":   {3, 15},
	"claude-sonnet-4-5": {3, 15},
	"claude-haiku-4-5":  {1, 5},
	"claude-3-5-haiku":  {0.8, 4},
	"claude-3-7-sonnet": {3, 15},
}

// DefaultAgent returns the agent settings weft runs with when the config
// says nothing.
func DefaultAgent() Agent {
	prices := make(map[string]Price, len(defaultPrices))
	for k, v := range defaultPrices {
		prices[k] = v
	}
	return Agent{
		LLM: LLM{Provider: DefaultLLMProvider},
		Planning: Planning{
			Strategy:                defaultPlanningStrategy,
			MaxPlanningDepth:        DefaultPlanningDepth,
			MaxPlanningCostUSD:      DefaultPlanningCostUSD,
			PlanningStepTimeout:     Duration(DefaultPlanningTimeout),
			CircuitBreakerThreshold: DefaultNoOpThreshold,
			MaxReplans:              DefaultMaxReplans,
		},
		Prices: prices,
	}
}

// PriceOf returns the price of model: an exact entry, else the longest entry
// the model name starts with (dated snapshots such as
// "claude-sonnet-4-5-20250929" take their family's price). ok is false when
// nothing matches; the model is then treated as free.
func (a Agent) PriceOf(model string) (Price, bool) {
	if p, ok := a.Prices[model]; ok {
		return p, true
	}
	names := make([]string, 0, len(a.Prices))
	for k := range a.Prices {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, k := range names {
		if strings.HasPrefix(model, k+"-") || strings.HasPrefix(model, k+":") {
			return a.Prices[k], true
		}
	}
	return Price{}, false
}

// applyAgent copies [llm], [router.planning] and [prices] of a decoded file
// onto cfg, keeping defaults for what the file leaves out.
func applyAgent(cfg *Config, fc *fileConfig, path string) error {
	l, p := fc.LLM, fc.Router.Planning
	a := &cfg.Agent
	if l.Provider != "" {
		l.Provider = strings.ToLower(l.Provider)
		if l.Provider != "openai" && l.Provider != "anthropic" {
			return invalidf("%s: llm.provider is %q; use openai (any OpenAI-compatible server) or anthropic", path, l.Provider)
		}
		a.LLM.Provider = l.Provider
	}
	a.LLM.Model, a.LLM.BaseURL, a.LLM.APIKeyEnv = l.Model, l.BaseURL, l.APIKeyEnv
	a.LLM.MaxTokens, a.LLM.MaxRetries = l.MaxTokens, l.MaxRetries
	if l.MaxTokens < 0 || l.MaxRetries < -1 {
		return invalidf("%s: llm.max_tokens must be positive and llm.max_retries at least -1 (0 means the default)", path)
	}
	switch p.Strategy {
	case "":
	case StrategyReact, StrategyPlanAndExecute:
		a.Planning.Strategy = p.Strategy
	default:
		return invalidf("%s: router.planning.strategy is %q; use react or plan_and_execute", path, p.Strategy)
	}
	if p.MaxPlanningDepth < 0 || p.CircuitBreakerThreshold < 0 || p.MaxReplans < 0 ||
		p.MaxPlanningCostUSD < 0 || math.IsNaN(p.MaxPlanningCostUSD) || math.IsInf(p.MaxPlanningCostUSD, 0) {
		return invalidf("%s: router.planning limits must be positive numbers (0 means the default)", path)
	}
	setPositive(&a.Planning.MaxPlanningDepth, p.MaxPlanningDepth)
	setPositive(&a.Planning.CircuitBreakerThreshold, p.CircuitBreakerThreshold)
	setPositive(&a.Planning.MaxReplans, p.MaxReplans)
	if p.MaxPlanningCostUSD > 0 {
		a.Planning.MaxPlanningCostUSD = p.MaxPlanningCostUSD
	}
	if p.PlanningStepTimeout > 0 {
		a.Planning.PlanningStepTimeout = p.PlanningStepTimeout
	}
	for model, price := range fc.Prices {
		if price.Input < 0 || price.Output < 0 {
			return invalidf("%s: prices.%q: input and output are USD per million tokens and cannot be negative", path, model)
		}
		a.Prices[model] = price
	}
	return nil
}

func setPositive(dst *int, v int) {
	if v > 0 {
		*dst = v
	}
}
