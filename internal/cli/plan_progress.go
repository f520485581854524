package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/plan"
)

// progress prints a run's events as lines : which steps start,
// complete or fail, with the elapsed time and the counts.
type progress struct {
	w     io.Writer
	start time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now()} }

func (p *progress) event(e plan.Event) {
	fmt.Fprintf(p.w, "[%6.1fs] %s\n", time.Since(p.start).Seconds(), daemon.DescribeEvent(e))
}

func (p *progress) summary(pl *plan.Plan, cp *plan.Checkpoint) {
	fmt.Fprintf(p.w, "\nPlan %s %s: %d/%d steps done, %d failed, %d skipped, in %.1fs.\n", pl.ID, cp.Status,
		len(cp.CompletedSteps), len(pl.Steps), len(cp.FailedSteps), len(cp.SkippedSteps), time.Since(p.start).Seconds())
}
