package hub

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/weft-dev/weft/internal/circuit"
	"github.com/weft-dev/weft/internal/config"
)

// BreakerState is the state of a server's circuit breaker; the semantics
// are internal/circuit's.
type BreakerState = circuit.State

// The breaker states.
const (
	BreakerClosed   = circuit.Closed
	BreakerOpen     = circuit.Open
	BreakerHalfOpen = circuit.HalfOpen
)

// ErrCircuitOpen is returned, wrapped in a *CircuitOpenError, for a call
// refused because the server's breaker is open.
var ErrCircuitOpen = circuit.ErrOpen

// CircuitOpenError says which server (and, for a tool open after timeouts,
// which tool) refused a call, after how many consecutive failures, and when
// the next probe call will be let through.
type CircuitOpenError struct {
	Server   string
	Tool     string // set when only this tool's breaker is open
	Failures int
	RetryIn  time.Duration // 0 while a probe call is in flight
}

func (e *CircuitOpenError) Error() string {
	prefix := e.Server + ": "
	if e.Tool != "" {
		prefix += "tool " + e.Tool + " timed out; "
	}
	return prefix + (&circuit.OpenError{Failures: e.Failures, RetryIn: e.RetryIn}).Error()
}

// Unwrap makes errors.Is(err, ErrCircuitOpen) true.
func (e *CircuitOpenError) Unwrap() error { return ErrCircuitOpen }

// breaker is one server's (or one of its tools') circuit breaker: a
// circuit.Breaker whose refusals name the server (and tool).
type breaker struct {
	server, tool string
	*circuit.Breaker
}

// newBreaker returns the breaker of server; threshold and reset default to
// the config's defaults when not positive.
func newBreaker(server string, threshold int, reset time.Duration, now func() time.Time) *breaker {
	if threshold <= 0 {
		threshold = config.DefaultFailureThreshold
	}
	if reset <= 0 {
		reset = config.DefaultResetTimeout
	}
	return &breaker{server: server, Breaker: circuit.New(threshold, reset, now)}
}

// allow admits a call or refuses it with a *CircuitOpenError. probe is true
// for the single call let through in half-open state; its outcome decides.
func (b *breaker) allow() (probe bool, err error) {
	probe, err = b.Allow()
	if err == nil {
		return probe, nil // errors.As would move oe to the heap on every call
	}
	var oe *circuit.OpenError
	if errors.As(err, &oe) {
		return false, &CircuitOpenError{Server: b.server, Tool: b.tool, Failures: oe.Failures, RetryIn: oe.RetryIn}
	}
	return probe, err
}

// outcome classifies the end of a call for the breaker.
type outcome = circuit.Outcome

const (
	outcomeSuccess = circuit.Success // the server answered (isError results included)
	outcomeFailure = circuit.Failure // transport error, timeout, protocol error
	outcomeIgnored = circuit.Ignored // cancelled by the caller, or the caller's own mistake
)

func (b *breaker) record(probe bool, o outcome) { b.Record(probe, o) }

func (b *breaker) snapshot() (BreakerState, int) { return b.Snapshot() }

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
