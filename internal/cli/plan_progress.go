package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/weft-dev/weft/internal/plan"
)

// progress prints a run's events as lines (SPEC P8): which steps start,
// complete or fail, with the elapsed time and the counts.
type progress struct {
	w     io.Writer
	start time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) event(e plan.Event) {
	fmt.Fprintf(p.w, "[%6.1fs] %s\n", time.Since(p.start).Seconds(), describeEvent(e))
}

// describeEvent is one line about an event, shared by the CLI and the MCP
// progress notifications.
func describeEvent(e plan.Event) string {
	s := e.Step
	name := fmt.Sprintf("step %d %s", s.Index, s.Title)
	counts := fmt.Sprintf("%d/%d done, %d running, %d failed", e.Done, e.Total, e.Running, e.Failed)
	switch e.Kind {
	case plan.StepStarted:
		return fmt.Sprintf("started %s %s (%s)", name, toolNames(s), counts)
	case plan.StepDone:
		return fmt.Sprintf("done    %s in %.1fs (%s)", name, e.Elapsed.Seconds(), counts)
	case plan.StepFailed:
		return fmt.Sprintf("failed  %s: %s (%s)", name, oneLine(e.Err), counts)
	case plan.StepRetry:
		return fmt.Sprintf("retry   %s, attempt %d: %s", name, e.Attempt, oneLine(e.Err))
	case plan.StepSkipped:
		return fmt.Sprintf("skipped %s: a step it depends on failed", name)
	}
	return string(e.Kind) + " " + name
}

func toolNames(s *plan.Step) string {
	names := make([]string, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		names = append(names, c.Name)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func (p *progress) summary(pl *plan.Plan, cp *plan.Checkpoint) {
	fmt.Fprintf(p.w, "\nPlan %s %s: %d/%d steps done, %d failed, %d skipped, in %.1fs.\n", pl.ID, cp.Status,
		len(cp.CompletedSteps), len(pl.Steps), len(cp.FailedSteps), len(cp.SkippedSteps), time.Since(p.start).Seconds())
}

// planTools adds the tools' idempotency annotations to the hub adapter, so
// that resume may re-run an interrupted read-only or idempotent step.
type planTools struct{ hubTools }

var _ plan.Idempotency = planTools{}

// Idempotent reports whether re-running the tool is safe: annotated
// idempotent or read-only.
func (t planTools) Idempotent(name string) bool {
	tool, ok := t.h.Catalog().Tool(name)
	if !ok || tool.Def == nil || tool.Def.Annotations == nil {
		return false
	}
	ann := tool.Def.Annotations
	return ann.ReadOnlyHint || ann.IdempotentHint
}
