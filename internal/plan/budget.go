package plan

import (
	"errors"
	"fmt"
	"sync"
)

// ErrBudget reports that a guard refused a tool call.
var ErrBudget = errors.New("tool-call budget exhausted")

// Limits are the guards of a run. Zero means no limit.
type Limits struct {
	MaxCalls        int            // tool calls in all
	MaxCallsPerTool int            // calls of any one tool
	PerTool         map[string]int // calls of the named tools (overrides MaxCallsPerTool)
}

// Budget counts tool calls against Limits. It is safe for concurrent use, so
// the agent and the plans it runs can share one.
type Budget struct {
	limits Limits
	mu     sync.Mutex
	total  int
	per    map[string]int
}

// NewBudget returns a budget with nothing spent.
func NewBudget(l Limits) *Budget {
	return &Budget{limits: l, per: map[string]int{}}
}

// Take spends one call of tool, or returns an error wrapping ErrBudget that
// says which guard refused it.
func (b *Budget) Take(tool string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m := b.limits.MaxCalls; m > 0 && b.total >= m {
		return fmt.Errorf("%w: the run made its %d tool calls (limit max_calls); raise it to go on", ErrBudget, m)
	}
	limit := b.limits.MaxCallsPerTool
	if n, ok := b.limits.PerTool[tool]; ok {
		limit = n
	}
	if limit > 0 && b.per[tool] >= limit {
		return fmt.Errorf("%w: %s was called %d times (its per-tool limit); raise the limit to go on", ErrBudget, tool, limit)
	}
	b.total++
	b.per[tool]++
	return nil
}

// Spend records calls made earlier (a resumed run's), without checking.
func (b *Budget) Spend(calls map[string]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for tool, n := range calls {
		b.total += n
		b.per[tool] += n
	}
}

// Used returns the calls spent in all.
func (b *Budget) Used() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}
