package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/weft-dev/weft/internal/llm"
)

// No-op rules: a step is a no-op when it takes no action, repeats
// the previous action with the same arguments, or observes nothing or the
// same as the previous step.
const (
	NoOpNoAction         = "no_action"
	NoOpRepeatedAction   = "repeated_action"
	NoOpEmptyObservation = "empty_observation"
	NoOpSameObservation  = "same_observation"
)

// noopGuard remembers the previous step to judge the next.
type noopGuard struct {
	prevAction      string
	prevObservation string
}

// judge returns the no-op rule st meets ("" when it made progress) and
// remembers st for the next judgement.
func (g *noopGuard) judge(st Step) string {
	action, obs := actionKey(st.Actions), observationOf(st.Actions)
	prevAction, prevObs := g.prevAction, g.prevObservation
	g.prevAction, g.prevObservation = action, obs
	switch {
	case len(st.Actions) == 0:
		return NoOpNoAction
	case action == prevAction:
		return NoOpRepeatedAction
	case strings.TrimSpace(obs) == "":
		return NoOpEmptyObservation
	case obs == prevObs:
		return NoOpSameObservation
	}
	return ""
}

// actionKey identifies a step's actions: tool names with canonical
// arguments (key order and spacing do not matter), in call order.
func actionKey(acts []Action) string {
	parts := make([]string, len(acts))
	for i, a := range acts {
		parts[i] = a.Tool + " " + canonicalJSON(a.Args)
	}
	return strings.Join(parts, "\n")
}

func observationOf(acts []Action) string {
	parts := make([]string, len(acts))
	for i, a := range acts {
		parts[i] = a.Observation
	}
	return strings.Join(parts, "\n")
}

// canonicalJSON re-encodes raw so that equal values compare equal; invalid
// JSON is compared as trimmed text.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(bytes.TrimSpace(raw))
	}
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(b)
}

// countNoOp updates the run's consecutive no-op count and reports whether
// the breaker trips.
func (r *run) countNoOp(rule string) bool {
	if rule == "" {
		r.noops = 0
		return false
	}
	r.noops++
	return r.noops >= r.a.o.Limits.NoOpThreshold
}

// overBudget is the conservative check before a step: true when
// the estimated cost of sending req would exceed what is left.
func (r *run) overBudget(req llm.Request) bool {
	return r.meter.estimate(req) > r.meter.remaining(r.a.o.Limits.MaxCostUSD)
}

// timedOut reports whether the step context ended by its own deadline
// while the run's context is still live.
func timedOut(runCtx, stepCtx context.Context) bool {
	return runCtx.Err() == nil && errors.Is(stepCtx.Err(), context.DeadlineExceeded)
}
