// Package circuit is weft's circuit breaker, used for upstream servers (by
// the hub, one per server) and for delegations. Its semantics, in one place:
//
//   - Closed: calls go through. Each failure adds one to a count of
//     consecutive failures; a success resets it. When the count reaches the
//     threshold the breaker opens.
//   - Open: calls are refused at once with an *OpenError saying after how
//     many failures and when the next probe is let through. Outcomes of calls
//     admitted before it opened (stragglers) change nothing: once open, only
//     the probe decides.
//   - Half-open: once the reset timeout has passed since it opened, exactly
//     one call, the probe, is let through; others are refused while it runs.
//     The probe's success closes the breaker and resets the count; its failure
//     opens it for another full reset timeout; a probe whose outcome is
//     ignored (cancelled by its caller) lets the next call probe.
//   - Reset closes the breaker from any state: the owner has other proof the
//     peer is healthy (the hub calls it when a lost upstream reconnects).
//
// What counts as a failure is the caller's decision (Record's Outcome): the
// hub counts transport errors, timeouts and protocol errors, not tool
// results with isError, calls the client cancelled, or malformed requests.
package circuit

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// State is a breaker's state, as shown to users.
type State string

// The breaker states.
const (
	Closed   State = "closed"
	Open     State = "open"
	HalfOpen State = "half-open"
)

// Outcome classifies the end of an admitted call.
type Outcome int

// The outcomes of a call.
const (
	Success Outcome = iota // the peer answered
	Failure                // the peer failed (transport error, timeout, protocol error)
	Ignored                // says nothing about the peer (cancelled, the caller's mistake)
)

// ErrOpen is wrapped by every *OpenError.
var ErrOpen = errors.New("circuit open")

// OpenError refuses a call while the breaker is open or its probe runs.
type OpenError struct {
	Failures int           // consecutive failures that opened it
	RetryIn  time.Duration // until the next probe; 0 while a probe is in flight
}

func (e *OpenError) Error() string {
	if e.RetryIn <= 0 {
		return fmt.Sprintf("circuit open after %d consecutive failures; a probe call is in flight, retry shortly", e.Failures)
	}
	return fmt.Sprintf("circuit open after %d consecutive failures; next probe in %ds", e.Failures, int(math.Ceil(e.RetryIn.Seconds())))
}

// Unwrap makes errors.Is(err, ErrOpen) true.
func (e *OpenError) Unwrap() error { return ErrOpen }

// Breaker is one circuit breaker. It is safe for concurrent use.
type Breaker struct {
	threshold int
	reset     time.Duration
	now       func() time.Time

	mu       sync.Mutex
	state    State
	failures int
	openedAt time.Time
	probing  bool
}

// New returns a closed breaker that opens after threshold consecutive
// failures (never, if threshold <= 0) and probes reset after opening. now is
// its clock (nil: time.Now), injectable so tests need not wait.
func New(threshold int, reset time.Duration, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	return &Breaker{threshold: threshold, reset: reset, now: now, state: Closed}
}

// Allow admits a call or refuses it with an *OpenError. probe is true for the
// one call let through half-open; pass it to Record with the call's outcome.
func (b *Breaker) Allow() (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case Closed:
		return false, nil
	case Open:
		if wait := b.openedAt.Add(b.reset).Sub(b.now()); wait > 0 {
			return false, &OpenError{Failures: b.failures, RetryIn: wait}
		}
		b.state = HalfOpen
	}
	if b.probing {
		return false, &OpenError{Failures: b.failures}
	}
	b.probing = true
	return true, nil
}

// Record applies the outcome of a call Allow admitted.
func (b *Breaker) Record(probe bool, o Outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	} else if b.state != Closed {
		return // once open, only the probe decides; stragglers prove little
	}
	switch o {
	case Success:
		b.state, b.failures = Closed, 0
	case Failure:
		b.failures++
		if probe || (b.threshold > 0 && b.failures >= b.threshold) {
			b.state, b.openedAt = Open, b.now()
		}
	}
}

// Reset closes the breaker and clears its count. A probe in flight stays
// the probe: its outcome still applies.
func (b *Breaker) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state, b.failures = Closed, 0
}

// Snapshot reports the state and the failure count; an open breaker whose
// reset timeout has passed shows as half-open, which is what a call would
// meet.
func (b *Breaker) Snapshot() (State, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == Open && !b.now().Before(b.openedAt.Add(b.reset)) {
		return HalfOpen, b.failures
	}
	return b.state, b.failures
}
