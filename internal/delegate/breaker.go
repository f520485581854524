package delegate

import (
	"time"

	"github.com/weft-dev/weft/internal/circuit"
)

// newBreaker returns the delegation breaker: internal/circuit's semantics,
// applied to whole delegations. threshold 0 disables it.
func newBreaker(threshold int, reset time.Duration) *circuit.Breaker {
	return circuit.New(threshold, reset, nil)
}

// delegationOutcome is how a finished delegation counts: a cancelled one
// says nothing about the delegate.
func delegationOutcome(err error, cancelled bool) circuit.Outcome {
	switch {
	case cancelled:
		return circuit.Ignored
	case err != nil:
		return circuit.Failure
	}
	return circuit.Success
}
