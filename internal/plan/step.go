package plan

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// execStep runs a step's tool calls in order, with its retry and fallback
// policy. One call gives its result; several give the list of results.
func (r *runner) execStep(ctx context.Context, s *Step, st *stepRun) (any, error) {
	res, err := r.attempts(ctx, s, st)
	if err == nil || s.policy() != OnErrorFallback || errors.Is(err, ErrBudget) || ctx.Err() != nil {
		return res, err
	}
	fres, ferr := r.call(ctx, *s.Fallback, st)
	if ferr != nil {
		return nil, fmt.Errorf("%v; its fallback %s also failed: %w", err, s.Fallback.Name, ferr)
	}
	return fres, nil
}

// attempts tries the step's calls up to Retry.Attempts times, waiting
// Backoff before the second try and twice as long before each next one.
func (r *runner) attempts(ctx context.Context, s *Step, st *stepRun) (any, error) {
	tries, wait := 1, time.Duration(0)
	if s.Retry != nil {
		tries, wait = max(1, s.Retry.Attempts), time.Duration(s.Retry.Backoff)
	}
	var err error
	for n := 1; ; n++ {
		var res any
		res, err = r.calls(ctx, s, st)
		if err == nil || n >= tries || errors.Is(err, ErrBudget) || errors.Is(err, errArgs) {
			return res, err
		}
		r.emitRetry(Event{Kind: StepRetry, Step: s, Err: err, Attempt: n + 1})
		if !sleep(ctx, wait) {
			return nil, err
		}
		wait *= 2
	}
}

func (r *runner) calls(ctx context.Context, s *Step, st *stepRun) (any, error) {
	if len(s.ToolCalls) == 1 {
		return r.call(ctx, s.ToolCalls[0], st)
	}
	out := make([]any, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		v, err := r.call(ctx, c, st)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// errArgs marks a reference that does not resolve: retrying cannot help.
var errArgs = errors.New("arguments do not resolve")

// call resolves a tool call's arguments, spends one call of the budget and
// calls the tool.
func (r *runner) call(ctx context.Context, c ToolCall, st *stepRun) (any, error) {
	args, err := substituteArgs(c.Args, func(rf ref) (any, error) { return lookupIn(st.vars, rf) })
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errArgs, c.Name, err)
	}
	if err := r.budget.Take(c.Name); err != nil {
		return nil, err
	}
	st.calls[c.Name]++
	res, err := r.c.CallTool(ctx, c.Name, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	v, err := resultValue(res)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return v, nil
}

// stepRun is what one running step owns: its copy of the variables and the
// tool calls it made (merged into the checkpoint when it ends).
type stepRun struct {
	vars  map[string]any
	calls map[string]int
}

// sleep waits d or until ctx ends; it reports whether the wait completed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
