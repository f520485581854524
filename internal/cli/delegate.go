package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
)

// delegateSender is the sender_id the fallback agent's steps are billed to.
const delegateSender = "delegate"

func (a *app) delegateCommand() *cobra.Command {
	var req delegate.Request
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "delegate TASK",
		Short: "Hand a task to Claude Code (weft as its MCP server), falling back to weft's own agent",
		Long: "Runs `claude -p TASK` with weft registered as its MCP server (SPEC D1) and prints each step on stderr,\n" +
			"then the answer on stdout. [delegation] in weft.toml sets the fallback chain, limits and timeout.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.Task = args[0]
			return a.delegateTask(cmd.Context(), req, jsonOut)
		},
	}
	cmd.Flags().StringArrayVar(&req.AllowedTools, "allowed-tools", nil, "Claude Code tool pattern it may use (repeatable; default [delegation] allowed_tools)")
	cmd.Flags().IntVar(&req.MaxTurns, "max-turns", 0, "most turns Claude Code takes, at least 3 (default [delegation] max_turns)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the answer and which delegate gave it as JSON")
	return cmd
}

func (a *app) delegateTask(ctx context.Context, req delegate.Request, jsonOut bool) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	r, err := a.delegateRunner(cfg, gateway.ParseDepth(os.Getenv(gateway.DelegationEnv)))
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

// delegateRunner builds the delegation runner [delegation] describes, for a
// weft at delegation depth depth, with weft's own agent as the "agent"
// delegate.
func (a *app) delegateRunner(cfg *config.Config, depth int) (*delegate.Runner, error) {
	d := cfg.Delegation
	return delegate.New(delegate.Config{
		Command: d.ClaudeCommand, WeftConfig: cfg.Path, Chain: d.Fallback, AllowedTools: d.AllowedTools,
		MaxTurns: d.MaxTurns, Timeout: d.Timeout.Std(), MaxParallel: d.MaxConcurrent, Depth: depth, MaxDepth: cfg.Security.MaxDelegationDepth,
		FailureThreshold: d.FailureThreshold, ResetTimeout: d.ResetTimeout.Std(), Agent: a.delegateAgent,
	})
}

// delegateAgent runs weft's own agent on task, relaying each step.
func (a *app) delegateAgent(ctx context.Context, task string, emit func(delegate.Event)) (string, error) {
	s, err := a.startAgent(ctx, agentFlags{sender: delegateSender}, func(st agent.Step) {
		if st.Thought != "" {
			emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindText, Text: st.Thought})
		}
		for _, act := range st.Actions {
			emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindToolUse, Tool: act.Tool, Text: string(act.Args)})
		}
	})
	if err != nil {
		return "", err
	}
	defer s.close()
	res, err := s.agent.Run(ctx, agent.Task{Text: task, Sender: delegateSender})
	if err != nil {
		return "", err
	}
	if res.Reason != agent.ReasonComplete {
		return "", errors.New("the agent stopped early: " + strings.TrimSpace(string(res.Reason)+" "+res.Message))
	}
	emit(delegate.Event{Delegate: delegate.Agent, Kind: delegate.KindResult, Text: res.Answer})
	return res.Answer, nil
}

// gatewayDelegator serves weft__delegate over a lazily built runner, so a
// face whose config cannot delegate still starts.
type gatewayDelegator struct {
	a     *app
	cfg   *config.Config
	depth int

	once sync.Once // one runner, so its slots and breaker span every call
	r    *delegate.Runner
	err  error
}

func (g *gatewayDelegator) runner() (*delegate.Runner, error) {
	g.once.Do(func() { g.r, g.err = g.a.delegateRunner(g.cfg, g.depth) })
	return g.r, g.err
}

// delegator returns the face's Delegator for cfg, in a weft at depth.
func (a *app) delegator(cfg *config.Config, depth int) gateway.Delegator {
	return &gatewayDelegator{a: a, cfg: cfg, depth: depth}
}

// Delegate runs one delegation for the face.
func (g *gatewayDelegator) Delegate(ctx context.Context, in gateway.DelegateArgs, progress func(string)) (gateway.DelegateResult, error) {
	r, err := g.runner()
	if err != nil {
		return gateway.DelegateResult{}, err
	}
	res, err := r.Run(ctx, delegate.Request{Task: in.Task, AllowedTools: in.AllowedTools, MaxTurns: in.MaxTurns, Depth: in.Depth},
		func(e delegate.Event) { progress(e.String()) })
	if err != nil {
		return gateway.DelegateResult{}, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return gateway.DelegateResult{}, fmt.Errorf("encode the delegation's result: %w", err)
	}
	return gateway.DelegateResult{Answer: res.Answer, Data: b}, nil
}
