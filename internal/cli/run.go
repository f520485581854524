package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/llm"
)

// newPlanRunner builds the plan engine's runner for plan_and_execute. It is
// nil until the plan engine is wired in; the agent then explains that only
// react is available.
var newPlanRunner func(cfg *config.Config) agent.PlanRunner

// exitPartial is the exit code of a run that stopped early (SPEC A4).
const exitPartial = 2

// agentFlags are the flags `weft run` and `weft chat` share.
type agentFlags struct {
	strategy string
	sender   string
}

func (f *agentFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.strategy, "strategy", "", "react or plan_and_execute (default [router.planning] strategy)")
	cmd.Flags().StringVar(&f.sender, "sender", "cli", "sender_id the cost of every step is attributed to")
}

// agentSession is a running hub with an agent over it.
type agentSession struct {
	rt        *runtime
	tools     hubTools
	agent     *agent.Agent
	stopWatch func()
}

func (s *agentSession) close() {
	s.stopWatch()
	s.rt.stop()
}

// startAgent connects the configured servers, watches the config (so a
// server added mid-run shows up in the next iteration) and builds the agent
// over the hub. onStep sees each step as it ends.
func (a *app) startAgent(ctx context.Context, f agentFlags, onStep func(agent.Step)) (*agentSession, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	lc := cfg.Agent.LLM
	provider, err := llm.New(llm.Config{Provider: lc.Provider, Model: lc.Model, BaseURL: lc.BaseURL, APIKeyEnv: lc.APIKeyEnv,
		MaxTokens: lc.MaxTokens, MaxRetries: lc.MaxRetries})
	if err != nil {
		return nil, err
	}
	price, ok := cfg.Agent.PriceOf(lc.Model)
	if !ok {
		a.logger.Debug("no price for this model; its steps count as free (add [prices] to change that)", "model", lc.Model)
	}
	strategy := f.strategy
	if strategy == "" {
		strategy = cfg.Agent.Planning.Strategy
	}
	pl := cfg.Agent.Planning
	opts := agent.Options{
		Provider: provider,
		Limits: agent.Limits{MaxDepth: pl.MaxPlanningDepth, MaxCostUSD: pl.MaxPlanningCostUSD, StepTimeout: pl.PlanningStepTimeout.Std(),
			NoOpThreshold: pl.CircuitBreakerThreshold, MaxReplans: pl.MaxReplans},
		MaxTools: cfg.Limits.MaxTools,
		Price:    agent.Price{Input: price.Input, Output: price.Output},
		Strategy: strategy,
		OnStep:   onStep,
		Logger:   a.logger,
	}
	if newPlanRunner != nil {
		opts.Plans = newPlanRunner(cfg)
	}
	rt, err := a.start(ctx)
	if err != nil {
		return nil, err
	}
	rt.settle(ctx, a.logger)
	tools := hubTools{rt.hub}
	opts.Tools = tools
	ag, err := agent.New(opts)
	if err != nil {
		rt.stop()
		return nil, err
	}
	return &agentSession{rt: rt, tools: tools, agent: ag, stopWatch: a.startWatcher(ctx, rt)}, nil
}

func (a *app) runCommand() *cobra.Command {
	var f agentFlags
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Have the agent carry out a task with the configured MCP servers' tools",
		Long: "Runs the agent (SPEC A2–A6) on TASK and prints each thought, action and observation, then the answer.\n" +
			"A run stopped by a guard rail prints what it completed and exits with code 2.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runTask(cmd.Context(), args[0], f, jsonOut)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the full record of the run as JSON")
	return cmd
}

func (a *app) runTask(ctx context.Context, task string, f agentFlags, jsonOut bool) error {
	var onStep func(agent.Step)
	if !jsonOut {
		onStep = printStepsTo(a.stdout)
	}
	s, err := a.startAgent(ctx, f, onStep)
	if err != nil {
		return err
	}
	defer s.close()
	res, err := s.agent.Run(ctx, agent.Task{Text: task, Sender: f.sender})
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if jsonOut {
		if err := writeJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		agent.WriteSummary(a.stdout, res)
	}
	return partialError(res)
}

// partialError turns an early stop into exit code 2.
func partialError(res *agent.Result) error {
	if res.Reason == agent.ReasonComplete {
		return nil
	}
	return exitError{code: exitPartial, err: errors.New("planning terminated: " + string(res.Reason))}
}

// printStepsTo returns an OnStep that prints compactly to w.
func printStepsTo(w io.Writer) func(agent.Step) {
	return func(st agent.Step) { agent.WriteStep(w, st) }
}
