package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
)

func (a *app) delegateCommand() *cobra.Command {
	var req delegate.Request
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "delegate TASK",
		Short: "Hand a task to Claude Code (weft as its MCP server), falling back to weft's own agent",
		Long: "Runs `claude -p TASK` with weft registered as its MCP server and prints each step on stderr,\n" +
			"then the answer on stdout. [delegation] in weft.toml sets the fallback chain, limits and timeout.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Task = args[0]
			return a.delegateTask(cmd.Context(), req, jsonOut)
		},
	}
	cmd.Flags().StringArrayVar(&req.AllowedTools, "allowed-tools", nil, "Claude Code tool pattern it may use (repeatable; default [delegation] allowed_tools)")
	cmd.Flags().IntVar(&req.MaxTurns, "max-turns", 0, "most turns Claude Code takes, at least 3 (default [delegation] max_turns)")
	cmd.Flags().StringVar(&req.Agent, "agent", "", "delegate as this agent: its [delegation] settings, and Claude Code (or weft's own agent) sees its tools only")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the answer, which delegate gave it and what it cost (cost_usd) as JSON")
	return cmd
}

func (a *app) delegateTask(ctx context.Context, req delegate.Request, jsonOut bool) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if req.Agent != "" {
		spec := cfg.Agents[req.Agent]
		if spec == nil {
			return cfg.NoAgentError(req.Agent)
		}
		as := *cfg // the runner's defaults are the agent's [delegation]
		as.Delegation = spec.Delegation
		cfg = &as
	}
	r, err := daemon.NewRunner(cfg, gateway.ParseDepth(os.Getenv(gateway.DelegationEnv)), a.delegateAgent)
	if err != nil {
		return err
	}
	res, err := r.Run(ctx, req, func(e delegate.Event) { fmt.Fprintln(a.stderr, e.String()) })
	if err != nil {
		return fmt.Errorf("delegate: %w", err)
	}
	if jsonOut {
		return writeJSON(a.stdout, res)
	}
	fmt.Fprintln(a.stdout, res.Answer)
	return nil
}

// delegateAgent is the "agent" delegate of `weft delegate`: this process
// runs no daemon until the chain falls back to weft's own agent, which then
// starts one for the task.
func (a *app) delegateAgent(ctx context.Context, task delegate.AgentTask, emit func(delegate.Event)) (delegate.AgentAnswer, error) {
	d, err := a.startSettled(ctx)
	if err != nil {
		return delegate.AgentAnswer{}, err
	}
	defer stopDaemon(d)
	return d.RunDelegateAgent(ctx, task, emit)
}
