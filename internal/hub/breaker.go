package hub

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// BreakerState is the state of a server's circuit breaker.
type BreakerState string

// The breaker states.
const (
	BreakerClosed   BreakerState = "closed"
	BreakerOpen     BreakerState = "open"
	BreakerHalfOpen BreakerState = "half-open"
)

// ErrCircuitOpen is returned, wrapped in a *CircuitOpenError, for a call
// refused because the server's breaker is open.
var ErrCircuitOpen = errors.New("circuit open")

// CircuitOpenError says which server refused a call, after how many
// consecutive failures, and when the next probe call will be let through.
type CircuitOpenError struct {
	Server   string
	Failures int
	RetryIn  time.Duration // 0 while a probe call is in flight
}

func (e *CircuitOpenError) Error() string {
	if e.RetryIn <= 0 {
		return fmt.Sprintf("%s: circuit open after %d consecutive failures; a probe call is in flight, retry shortly", e.Server, e.Failures)
	}
	secs := int(math.Ceil(e.RetryIn.Seconds()))
	return fmt.Sprintf("%s: circuit open after %d consecutive failures; next probe in %ds", e.Server, e.Failures, secs)
}

// Unwrap makes errors.Is(err, ErrCircuitOpen) true.
func (e *CircuitOpenError) Unwrap() error { return ErrCircuitOpen }

// breaker is one server's circuit breaker. Its clock is injectable so that
// state sequences can be tested deterministically.
type breaker struct {
	server    string
	threshold int
	reset     time.Duration
	now       func() time.Time

	mu       sync.Mutex
	state    BreakerState
	failures int
	openedAt time.Time
	probing  bool
}

func newBreaker(server string, threshold int, reset time.Duration, now func() time.Time) *breaker {
	if threshold <= 0 {
		threshold = 3
	}
	if reset <= 0 {
		reset = 5 * time.Minute
	}
	if now == nil {
		now = time.Now
	}
	return &breaker{server: server, threshold: threshold, reset: reset, now: now, state: BreakerClosed}
}

// allow admits a call or refuses it with a *CircuitOpenError. probe is true
// for the single call let through in half-open state; its outcome decides.
func (b *breaker) allow() (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerClosed:
		return false, nil
	case BreakerOpen:
		wait := b.openedAt.Add(b.reset).Sub(b.now())
		if wait > 0 {
			return false, &CircuitOpenError{Server: b.server, Failures: b.failures, RetryIn: wait}
		}
		b.state = BreakerHalfOpen
	}
	if b.probing {
		return false, &CircuitOpenError{Server: b.server, Failures: b.failures}
	}
	b.probing = true
	return true, nil
}

// outcome classifies the end of a call for the breaker.
type outcome int

const (
	outcomeSuccess outcome = iota // the server answered (isError results included)
	outcomeFailure                // transport error, timeout, protocol error
	outcomeIgnored                // cancelled by the caller, or the caller's own mistake
)

// record applies a call's outcome.
func (b *breaker) record(probe bool, o outcome) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	} else if b.state != BreakerClosed {
		return // once open, only the probe decides; stragglers prove little
	}
	switch o {
	case outcomeSuccess:
		b.state, b.failures = BreakerClosed, 0
	case outcomeFailure:
		b.failures++
		if probe || b.failures >= b.threshold {
			b.state, b.openedAt = BreakerOpen, b.now()
		}
	}
}

// snapshot reports the state and failure count, moving open to half-open
// when the reset timeout has passed so that listings show what a call would
// meet.
func (b *breaker) snapshot() (BreakerState, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen && !b.now().Before(b.openedAt.Add(b.reset)) {
		return BreakerHalfOpen, b.failures
	}
	return b.state, b.failures
}

// classify decides how a call's error counts for the breaker: callerCtx is
// the context the caller gave (before weft added the server's timeout).
func classify(callerCtx context.Context, err error) outcome {
	if err == nil {
		return outcomeSuccess
	}
	if callerCtx.Err() != nil {
		return outcomeIgnored // the caller cancelled or its own deadline passed
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		switch wire.Code {
		case jsonrpc.CodeInvalidParams, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidRequest:
			return outcomeSuccess // the server is fine; the request was wrong
		}
	}
	return outcomeFailure
}
