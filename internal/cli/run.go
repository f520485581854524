package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/daemon"
)

// exitPartial is the exit code of a run that stopped early.
const exitPartial = 2

// agentFlags are the flags `weft run` and `weft chat` share.
type agentFlags struct {
	strategy string
	sender   string
	agent    string
}

func (f *agentFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.strategy, "strategy", "", "react or plan_and_execute (default [router.planning] strategy)")
	cmd.Flags().StringVar(&f.sender, "sender", "", "sender_id the cost of every step is attributed to (default: the agent's name, else cli)")
	cmd.Flags().StringVar(&f.agent, "agent", "", "run as this agent: its servers and tools, its model, limits and budget")
}

// senderID is who the run's cost is attributed to: --sender, else the
// agent's name, else "cli".
func (f agentFlags) senderID() string {
	switch {
	case f.sender != "":
		return f.sender
	case f.agent != "":
		return f.agent
	}
	return "cli"
}

// agentSession is a running daemon with weft's agent over its hub.
type agentSession struct {
	d     *daemon.Daemon
	tools daemon.HubTools
	agent *agent.Agent
}

func (s *agentSession) close() { stopDaemon(s.d) }

// startAgent starts a daemon (which watches the config, so a server added
// mid-run shows up in the next iteration) and builds the agent over its
// hub. onStep sees each step as it ends.
func (a *app) startAgent(ctx context.Context, f agentFlags, onStep func(agent.Step)) (*agentSession, error) {
	d, err := a.startSettled(ctx)
	if err != nil {
		return nil, err
	}
	ag, err := d.NewAgent(daemon.AgentOptions{Strategy: f.strategy, OnStep: onStep, Agent: f.agent})
	if err != nil {
		stopDaemon(d)
		return nil, err
	}
	tools, err := d.AgentTools(f.agent)
	if err != nil {
		stopDaemon(d)
		return nil, err
	}
	return &agentSession{d: d, tools: tools, agent: ag}, nil
}

func (a *app) runCommand() *cobra.Command {
	var f agentFlags
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Have the agent carry out a task with the configured MCP servers' tools",
		Long: "Runs the agent on TASK and prints each thought, action and observation, then the answer.\n" +
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
	res, err := s.agent.Run(ctx, agent.Task{Text: task, Sender: f.senderID()})
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
