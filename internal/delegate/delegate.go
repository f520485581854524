// Package delegate hands a task to another agent: Claude Code run
// as `claude -p` with weft as its MCP server, falling back to weft's own
// agent, under a concurrency limit, a breaker, a timeout and the delegation
// depth limit.
package delegate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/weft-dev/weft/internal/circuit"
)

// Delegates a fallback chain can name.
const (
	Claude = "claude" // Claude Code, `claude -p`
	Agent  = "agent"  // weft's own agent
)

// MinTurns is the fewest turns a Claude Code delegation gets.
const MinTurns = 3

// AgentFunc runs weft's own agent on a task, relaying its steps.
type AgentFunc func(ctx context.Context, task AgentTask, emit func(Event)) (AgentAnswer, error)

// AgentTask is what the agent delegate is asked to do, and as which agent.
type AgentTask struct {
	Text  string
	Agent string // the weft agent the delegation runs as; "": the default
}

// AgentAnswer is the agent delegate's answer and what its model cost.
type AgentAnswer struct {
	Text    string
	CostUSD float64
}

// Config configures a Runner.
type Config struct {
	Command      string        // the claude binary (default "claude", looked up in PATH)
	WeftBinary   string        // the weft Claude Code starts as its MCP server (default: this executable)
	WeftConfig   string        // the config that weft runs with; empty: its default
	Dir          string        // working directory of the delegate; empty: weft's
	Env          []string      // the delegate's environment; nil: weft's
	Chain        []string      // delegates tried in order (default claude, agent)
	AllowedTools []string      // --allowedTools when a request names none
	MaxTurns     int           // --max-turns when a request names none (at least MinTurns)
	Timeout      time.Duration // per attempt; 0: none
	MaxParallel  int           // delegations at once; 0: 1
	Depth        int           // this weft's delegation depth, read at start-up
	MaxDepth     int           // security.max_delegation_depth; 0: its default
	// FailureThreshold consecutive failed delegations open the breaker for
	// ResetTimeout; 0 disables it.
	FailureThreshold int
	ResetTimeout     time.Duration
	Agent            AgentFunc // the agent delegate; nil: not available
	// Model, ExcludedTools and MaxTokens are Claude Code's --model,
	// --disallowedTools and reply cap when a request names none.
	Model         string
	ExcludedTools []string
	MaxTokens     int
	// ClaudeSpent, when set, is told what each Claude Code attempt cost
	// (its total_cost_usd, failed attempts included), with the request's
	// agent name. The agent delegate's cost is not reported here: weft's
	// agent meters its own steps.
	ClaudeSpent func(agent string, usd float64)
}

func (c *Config) environ() []string {
	if c.Env != nil {
		return append([]string(nil), c.Env...)
	}
	return os.Environ()
}

// Request is one task to delegate. Its zero fields take the Runner's
// Config.
type Request struct {
	Task         string
	AllowedTools []string // Claude Code tool patterns, e.g. mcp__weft__*
	MaxTurns     int
	// Depth is the caller's in-band delegation depth, when it has one.
	Depth int
	// Agent is the weft agent the delegation runs as: Claude Code's weft
	// is `weft mcp-server --agent Agent`, and the agent delegate runs as
	// it. Empty: the default view of weft.
	Agent string
	// Per-call settings (an agent's [delegation] override merged over the
	// global one); a zero field keeps the Runner's.
	Command       string
	Chain         []string
	Timeout       time.Duration
	Model         string
	ExcludedTools []string
	MaxTokens     int
}

// Result is a delegation's answer, which delegate gave it and what the
// whole delegation cost.
type Result struct {
	Answer   string `json:"answer"`
	Delegate string `json:"delegate"`
	// CostUSD sums what every attempt of the chain reported spending, a
	// failed one included: Claude Code's total_cost_usd, weft's agent's
	// priced tokens.
	CostUSD float64 `json:"cost_usd"`
}

// Runner runs delegations. It is safe for concurrent use.
type Runner struct {
	cfg     Config
	slots   chan struct{}
	breaker *circuit.Breaker
}

// New checks cfg and returns a Runner.
func New(cfg Config) (*Runner, error) {
	if cfg.Command == "" {
		cfg.Command = Claude
	}
	if len(cfg.Chain) == 0 {
		cfg.Chain = []string{Claude, Agent}
	}
	if err := checkChain(cfg.Chain); err != nil {
		return nil, err
	}
	if cfg.WeftBinary == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find weft's own binary for the delegate's MCP config: %w", err)
		}
		cfg.WeftBinary = exe
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = 1
	}
	return &Runner{cfg: cfg, slots: make(chan struct{}, cfg.MaxParallel), breaker: newBreaker(cfg.FailureThreshold, cfg.ResetTimeout)}, nil
}

// Run delegates req, calling emit (if non-nil) for every step. It refuses
// past the depth limit, fails at once while the breaker is open, waits for a
// slot, then tries each delegate of the chain in turn.
func (r *Runner) Run(ctx context.Context, req Request, emit func(Event)) (*Result, error) {
	if emit == nil {
		emit = func(Event) {}
	}
	emit = onceLocked(emit)
	req = r.withDefaults(req)
	if err := checkChain(req.Chain); err != nil {
		return nil, err
	}
	depth, err := nextDepth(r.cfg.Depth, req.Depth, r.cfg.MaxDepth)
	if err != nil {
		return nil, err
	}
	probe, err := r.breaker.Allow()
	if err != nil {
		return nil, ErrBreakerOpen
	}
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		r.breaker.Record(probe, circuit.Ignored)
		return nil, fmt.Errorf("waiting for a delegation slot: %w", ctx.Err())
	}
	defer func() { <-r.slots }()
	res, err := r.chain(ctx, req, depth, emit)
	r.breaker.Record(probe, delegationOutcome(err, errors.Is(err, context.Canceled)))
	return res, err
}

// chain tries each delegate until one answers; a cancelled delegation
// stops the chain.
func (r *Runner) chain(ctx context.Context, req Request, depth int, emit func(Event)) (*Result, error) {
	var failed []Attempt
	var cost float64
	for i, name := range req.Chain {
		answer, spent, err := r.attempt(ctx, name, req, depth, emit)
		cost += spent
		if err == nil {
			return &Result{Answer: answer, Delegate: name, CostUSD: cost}, nil
		}
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		failed = append(failed, Attempt{Name: name, Err: err})
		if i < len(req.Chain)-1 {
			emit(Event{Delegate: name, Kind: KindFallback, Text: err.Error()})
		}
	}
	if len(failed) == 1 {
		return nil, failed[0].Err
	}
	return nil, &FallbackExhaustedError{Attempts: failed}
}

// attempt runs one delegate under the per-attempt timeout; it returns
// the answer and what the attempt cost.
func (r *Runner) attempt(ctx context.Context, name string, req Request, depth int, emit func(Event)) (string, float64, error) {
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	if name == Claude {
		c := &claudeRun{cfg: &r.cfg, req: req, depth: depth, emit: emit}
		answer, cost, err := c.run(ctx)
		if cost > 0 && r.cfg.ClaudeSpent != nil {
			r.cfg.ClaudeSpent(req.Agent, cost)
		}
		return answer, cost, err
	}
	if r.cfg.Agent == nil {
		return "", 0, errors.New("weft's agent is not available here; configure [llm] to use it as a fallback")
	}
	start := time.Now()
	answer, err := r.cfg.Agent(ctx, AgentTask{Text: req.Task, Agent: req.Agent}, emit)
	if err != nil && ctx.Err() != nil {
		return "", answer.CostUSD, ctxError(ctx, Agent, time.Since(start))
	}
	return answer.Text, answer.CostUSD, err
}
