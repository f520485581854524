// Package agent drives an LLM over weft's catalog: a ReAct loop
// and Plan-and-Execute behind hard guard rails, with cost per step. It
// reaches tools only through internal/toolset, so it knows nothing of the
// hub, the gateway or the CLI.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/weft-dev/weft/internal/llm"
	"github.com/weft-dev/weft/internal/toolset"
)

// Strategy names.
const (
	StrategyReact          = "react"
	StrategyPlanAndExecute = "plan_and_execute"
)

// Reason says why a run ended.
type Reason string

// Termination reasons. ReplanLimit is plan_and_execute's own: a plan kept
// failing after every allowed re-plan.
const (
	ReasonComplete       Reason = "complete"
	ReasonDepthLimit     Reason = "depth_limit"
	ReasonBudget         Reason = "budget_exhausted"
	ReasonStepTimeout    Reason = "step_timeout"
	ReasonCircuitBreaker Reason = "circuit_breaker"
	ReasonReplanLimit    Reason = "replan_limit"
)

// Limits are the guard rails of one run ([router.planning]).
type Limits struct {
	MaxDepth      int           // steps at most
	MaxCostUSD    float64       // budget of the run
	StepTimeout   time.Duration // bound on each step
	NoOpThreshold int           // consecutive no-op steps that stop the run
	MaxReplans    int           // plan_and_execute: re-plans after failures
}

// DefaultLimits are the agent's default guard rails.
func DefaultLimits() Limits {
	return Limits{MaxDepth: 10, MaxCostUSD: 1.0, StepTimeout: 60 * time.Second, NoOpThreshold: 3, MaxReplans: 2}
}

// Options configure an Agent.
type Options struct {
	Provider llm.Provider
	Tools    toolset.Caller // Describer too, when it can tell server states
	Limits   Limits
	// MaxTools bounds the tools offered to the LLM; the rest stay reachable
	// through the search meta tools. 0 means 50.
	MaxTools int
	Price    Price
	Strategy string // react (default) or plan_and_execute
	// Plans validates and runs plans for plan_and_execute.
	Plans PlanRunner
	// OnStep, when set, sees each step as soon as it ends.
	OnStep func(Step)
	// Spent, when set, is told each priced model request's cost and the
	// task's sender as soon as it is answered (a run's metrics).
	Spent  func(sender string, usd float64)
	Logger *slog.Logger
}

// Agent runs tasks. It is safe to run several tasks at once.
type Agent struct{ o Options }

// New checks opts and returns an agent.
func New(opts Options) (*Agent, error) {
	if opts.Provider == nil || opts.Tools == nil {
		return nil, errors.New("agent needs an LLM provider and a tool catalog")
	}
	d := DefaultLimits()
	if opts.Limits.MaxDepth <= 0 {
		opts.Limits.MaxDepth = d.MaxDepth
	}
	if opts.Limits.MaxCostUSD <= 0 {
		opts.Limits.MaxCostUSD = d.MaxCostUSD
	}
	if opts.Limits.StepTimeout <= 0 {
		opts.Limits.StepTimeout = d.StepTimeout
	}
	if opts.Limits.NoOpThreshold <= 0 {
		opts.Limits.NoOpThreshold = d.NoOpThreshold
	}
	if opts.MaxTools <= 0 {
		opts.MaxTools = 50
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	switch opts.Strategy {
	case "":
		opts.Strategy = StrategyReact
	case StrategyReact, StrategyPlanAndExecute:
	default:
		return nil, fmt.Errorf("strategy %q is not known: use react or plan_and_execute", opts.Strategy)
	}
	return &Agent{o: opts}, nil
}

// Task is one request to the agent.
type Task struct {
	Text   string
	Sender string // who pays: every step's cost is attributed to it
	// History holds earlier turns of a chat (user texts and final answers).
	History []llm.Message
	// Strategy overrides the agent's strategy for this task when set.
	Strategy string
}

// Action is one tool call of a step and what it returned.
type Action struct {
	Tool        string          `json:"tool"`
	Args        json.RawMessage `json:"args"`
	Observation string          `json:"observation"`
	IsError     bool            `json:"is_error,omitempty"`
}

// Step is one iteration of the loop: a thought, the actions it took and
// what they observed, or the final answer.
type Step struct {
	Index   int      `json:"index"`
	Kind    string   `json:"kind"` // react, plan, plan_step, answer
	Thought string   `json:"thought,omitempty"`
	Actions []Action `json:"actions,omitempty"`
	Answer  string   `json:"answer,omitempty"`
	// Plan is the plan a plan step wrote (plan_and_execute).
	Plan     json.RawMessage `json:"plan,omitempty"`
	NoOp     string          `json:"noop,omitempty"` // which no-op rule the step met
	Cost     Cost            `json:"cost"`
	Sender   string          `json:"sender_id"`
	Duration time.Duration   `json:"duration_ns"`
}

// Result is the full record of a run.
type Result struct {
	Task      string `json:"task"`
	Strategy  string `json:"strategy"`
	Reason    Reason `json:"reason"`
	Answer    string `json:"answer,omitempty"`
	Steps     []Step `json:"steps"`
	Completed int    `json:"completed_steps"`
	Planned   int    `json:"planned_steps"`
	Replans   int    `json:"replans,omitempty"`
	// Message is the partial-result line of an early stop.
	Message string `json:"message,omitempty"`
	Totals  Totals `json:"totals"`
}

// Run carries out one task under the guard rails. An early stop is not an
// error: the result says why and keeps every completed step. Errors are for
// failures to reach the LLM and for ctx ending.
func (a *Agent) Run(ctx context.Context, task Task) (*Result, error) {
	strategy := task.Strategy
	if strategy == "" {
		strategy = a.o.Strategy
	}
	r := a.newRun(task, strategy)
	var err error
	switch strategy {
	case StrategyReact:
		err = r.react(ctx)
	case StrategyPlanAndExecute:
		err = r.planAndExecute(ctx)
	default:
		return nil, fmt.Errorf("strategy %q is not known: use react or plan_and_execute", strategy)
	}
	return r.finish(), err
}

func (a *Agent) newRun(task Task, strategy string) *run {
	return &run{a: a, task: task, res: &Result{Task: task.Text, Strategy: strategy, Planned: a.o.Limits.MaxDepth},
		meter: newMeter(a.o.Price, task.Sender, a.o.Logger, a.o.Spent)}
}

// finish completes the result: totals, and the partial-result message of
// an early stop.
func (r *run) finish() *Result {
	r.res.Totals = r.meter.totals
	if r.res.Reason != "" && r.res.Reason != ReasonComplete {
		r.res.Message = fmt.Sprintf("Planning terminated: %s. Completed %d of %d planned steps. Partial results below.",
			r.res.Reason, r.res.Completed, r.res.Planned)
	}
	return r.res
}

// run is the state of one task.
type run struct {
	a     *Agent
	task  Task
	res   *Result
	meter *meter
	noops int
}

// record keeps a finished step and tells the caller about it.
func (r *run) record(st Step) {
	st.Sender = r.task.Sender
	r.res.Steps = append(r.res.Steps, st)
	r.res.Completed++
	if r.a.o.OnStep != nil {
		r.a.o.OnStep(st)
	}
}

// stop ends the run with reason.
func (r *run) stop(reason Reason) { r.res.Reason = reason }
