package plan

import "time"

// EventKind says what happened to a step.
type EventKind string

// The events of a run.
const (
	StepStarted EventKind = "started"
	StepDone    EventKind = "done"
	StepFailed  EventKind = "failed"
	StepRetry   EventKind = "retry"   // a failed attempt; another follows
	StepSkipped EventKind = "skipped" // a step it depends on failed
)

// Event reports progress of a run. Counters are zero on retry events.
type Event struct {
	Kind    EventKind
	Step    *Step
	Err     error         // on failed and retry
	Attempt int           // on retry: the attempt about to start
	Elapsed time.Duration // on done and failed: the step's own time
	Running int           // steps running now
	Done    int           // steps completed
	Failed  int           // steps failed
	Total   int           // steps in the plan
	Since   time.Duration // since the run started
}
