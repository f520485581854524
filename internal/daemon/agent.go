package daemon

import (
	"context"
	"errors"
	"strings"

	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/llm"
)

// AgentOptions say how an agent built by NewAgent runs.
type AgentOptions struct {
	// Strategy is react or plan_and_execute ("" : [router.planning]).
	Strategy string
	// OnStep sees each step as it ends; nil: nobody watches.
	OnStep func(agent.Step)
	// Agent, when set, runs as that configured agent: its view of the
	// tools, its [llm], [router.planning] and prices, its max_tools.
	Agent string
}

// NewAgent builds weft's own agent over the daemon's running hub: it calls
// the same connections as the face, and a server added mid-run shows up in
// its next iteration.
func (d *Daemon) NewAgent(o AgentOptions) (*agent.Agent, error) {
	settings, tools, maxTools, err := d.runsAs(o.Agent)
	if err != nil {
		return nil, err
	}
	lc := settings.LLM
	provider, err := llm.New(llm.Config{Provider: lc.Provider, Model: lc.Model, BaseURL: lc.BaseURL, APIKeyEnv: lc.APIKeyEnv,
		MaxTokens: lc.MaxTokens, MaxRetries: lc.MaxRetries})
	if err != nil {
		return nil, err
	}
	price, ok := settings.PriceOf(lc.Model)
	if !ok {
		d.logger.Debug("no price for this model; its steps count as free (add [prices] to change that)", "model", lc.Model)
	}
	strategy := o.Strategy
	if strategy == "" {
		strategy = settings.Planning.Strategy
	}
	pl := settings.Planning
	return agent.New(agent.Options{
		Provider: provider,
		Limits: agent.Limits{MaxDepth: pl.MaxPlanningDepth, MaxCostUSD: pl.MaxPlanningCostUSD, StepTimeout: pl.PlanningStepTimeout.Std(),
			NoOpThreshold: pl.CircuitBreakerThreshold, MaxReplans: pl.MaxReplans},
		MaxTools: maxTools,
		Price:    agent.Price{Input: price.Input, Output: price.Output},
		Strategy: strategy,
		OnStep:   o.OnStep,
		Spent:    d.obs.spent,
		Logger:   d.logger,
		Plans:    planEngine{},
		Tools:    tools,
	})
}

// runsAs is what a run as the named agent ("" for none) uses: its model
// settings, its view of the tools and its tool cap.
func (d *Daemon) runsAs(name string) (config.Agent, HubTools, int, error) {
	cfg := d.Config()
	tools, err := d.AgentTools(name)
	if err != nil || name == "" {
		return cfg.Agent, tools, cfg.Limits.MaxTools, err
	}
	spec := cfg.Agents[name]
	return spec.Agent, tools, spec.MaxTools, nil
}

// AgentTools is the tools the named agent sees ("" for everything), for
// runs and plans as that agent.
func (d *Daemon) AgentTools(name string) (HubTools, error) {
	if name == "" {
		return ToolsOf(d.hub), nil
	}
	cfg := d.Config()
	spec := cfg.Agents[name]
	if spec == nil {
		return HubTools{}, cfg.NoAgentError(name)
	}
	return ToolsAs(d.hub, agentview.New(spec, cfg.Gateway.Separator, gateway.BuiltinNames)), nil
}

// RunDelegateAgent runs weft's own agent on task over the daemon's hub, as
// the "agent" delegate, relaying each step as a delegation event. It runs
// as the delegation's agent (its view, model and limits), and its steps
// are billed to that name ("default" when none).
func (d *Daemon) RunDelegateAgent(ctx context.Context, task delegate.AgentTask, emit func(delegate.Event)) (delegate.AgentAnswer, error) {
	ag, err := d.NewAgent(AgentOptions{Agent: task.Agent, OnStep: func(st agent.Step) {
		if st.Thought != "" {
			emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindText, Text: st.Thought})
		}
		for _, act := range st.Actions {
			emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindToolUse, Tool: act.Tool, Text: string(act.Args)})
		}
	}})
	if err != nil {
		return delegate.AgentAnswer{}, err
	}
	res, err := ag.Run(ctx, agent.Task{Text: task.Text, Sender: costLabel(task.Agent)})
	spent := delegate.AgentAnswer{}
	if res != nil {
		spent.CostUSD = res.Totals.USD
	}
	if err != nil {
		return spent, err
	}
	if res.Reason != agent.ReasonComplete {
		return spent, errors.New("the agent stopped early: " + strings.TrimSpace(string(res.Reason)+" "+res.Message))
	}
	emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindResult, Text: res.Answer})
	spent.Text = res.Answer
	return spent, nil
}

// NewRunner builds the delegation runner [delegation] in cfg describes, for
// a weft at delegation depth depth, with agentFn as the "agent" delegate.
func NewRunner(cfg *config.Config, depth int, agentFn delegate.AgentFunc) (*delegate.Runner, error) {
	return delegate.New(runnerConfig(cfg, depth, agentFn))
}

// runnerConfig is the delegation runner's configuration from [delegation].
func runnerConfig(cfg *config.Config, depth int, agentFn delegate.AgentFunc) delegate.Config {
	d := cfg.Delegation
	return delegate.Config{
		Command: d.ClaudeCommand, WeftConfig: cfg.Path, Chain: d.Fallback, AllowedTools: d.AllowedTools,
		MaxTurns: d.MaxTurns, Timeout: d.Timeout.Std(), MaxParallel: d.MaxConcurrent, Depth: depth, MaxDepth: cfg.Security.MaxDelegationDepth,
		FailureThreshold: d.FailureThreshold, ResetTimeout: d.ResetTimeout.Std(), Agent: agentFn,
		Model: d.Model, ExcludedTools: d.ExcludedTools, MaxTokens: d.MaxTokens,
	}
}
