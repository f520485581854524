package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Status is where a run stands.
type Status string

// The states of a run.
const (
	StatusRunning   Status = "running"   // in progress, or killed while in progress
	StatusCompleted Status = "completed" // every step completed
	StatusFailed    Status = "failed"    // a step failed (see FailedSteps)
	StatusStopped   Status = "stopped"   // cancelled before the end
)

// Checkpoint is a run's state, written atomically after every change.
// Variables hold every result whole; on disk each lives in its own file,
// which Results names (Results is empty in memory).
type Checkpoint struct {
	PlanID         string         `json:"plan_id"`
	PlanHash       string         `json:"plan_hash"`
	Status         Status         `json:"status"`
	StartedAt      time.Time      `json:"started_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	CompletedSteps []int          `json:"completed_steps"`
	StartedSteps   []int          `json:"started_steps"` // every step ever started, completed or not
	FailedSteps    []FailedStep   `json:"failed_steps,omitempty"`
	SkippedSteps   []int          `json:"skipped_steps,omitempty"` // not run: a step they depend on failed
	Variables      map[string]any `json:"variables,omitempty"`
	// Results maps each variable to its file in the run's results
	// directory: the checkpoint as stored, before Store.LoadCheckpoint reads
	// the files back into Variables.
	Results map[string]string `json:"results,omitempty"`
	Calls   map[string]int    `json:"calls,omitempty"` // tool calls made, per tool, for the guards
}

// FailedStep records why a step failed.
type FailedStep struct {
	Step  int    `json:"step"`
	Error string `json:"error"`
}

// ParseCheckpoint decodes a checkpoint, keeping numbers exact.
func ParseCheckpoint(b []byte) (*Checkpoint, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var cp Checkpoint
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("not a valid checkpoint: %v; delete it to start over", err)
	}
	return &cp, nil
}

// Completed reports whether the step completed.
func (cp *Checkpoint) Completed(step int) bool { return slices.Contains(cp.CompletedSteps, step) }

// InFlight lists the steps that started but neither completed nor failed:
// the run was killed while they ran.
func (cp *Checkpoint) InFlight() []int {
	var out []int
	for _, s := range cp.StartedSteps {
		if cp.Completed(s) || cp.failed(s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func (cp *Checkpoint) failed(step int) bool {
	for _, f := range cp.FailedSteps {
		if f.Step == step {
			return true
		}
	}
	return false
}

// clone copies the parts of the checkpoint the executor changes, so that a
// saved copy never races with the run.
func (cp *Checkpoint) clone() *Checkpoint {
	c := *cp
	c.CompletedSteps = slices.Clone(cp.CompletedSteps)
	c.StartedSteps = slices.Clone(cp.StartedSteps)
	c.FailedSteps = slices.Clone(cp.FailedSteps)
	c.SkippedSteps = slices.Clone(cp.SkippedSteps)
	c.Variables = make(map[string]any, len(cp.Variables))
	for k, v := range cp.Variables {
		c.Variables[k] = v
	}
	c.Calls = make(map[string]int, len(cp.Calls))
	for k, v := range cp.Calls {
		c.Calls[k] = v
	}
	return &c
}
