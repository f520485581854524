package hub

import (
	"errors"
	"fmt"
	"time"
)

// Errors callers branch on with errors.Is. The face maps each to its form on
// the wire in one table (gateway/wire.go); keep the two in step.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrDraining      = errors.New("server draining")
	ErrAlreadyDrain  = errors.New("already draining")
	ErrDisconnected  = errors.New("server disconnected")
	ErrConnecting    = errors.New("still connecting")
	ErrUnknownTool   = errors.New("unknown tool")
	ErrUnknownPrompt = errors.New("unknown prompt")
	ErrUnknownURI    = errors.New("unknown resource")
	ErrHubClosed     = errors.New("weft is shutting down")
	// ErrBadReference is a completion request whose reference is missing or
	// of a type weft does not route.
	ErrBadReference = errors.New("completion/complete needs a ref of type ref/prompt or ref/resource")
	// ErrTimeout is a request the upstream did not answer within the
	// server's timeout_ms.
	ErrTimeout = errors.New("no answer within the server's timeout_ms")
	// ErrNoCallSlot is a request that waited for a free slot under a
	// concurrency limit until its timeout.
	ErrNoCallSlot = errors.New("no free call slot")
)

// ServerError names the server an error is about. The hub adds it exactly
// once per error, so a message reads "alpha: server draining", never
// "alpha: call echo: alpha: server draining".
type ServerError struct {
	Server string
	Err    error
}

func (e *ServerError) Error() string { return e.Server + ": " + e.Err.Error() }

// Unwrap gives errors.Is and errors.As the cause.
func (e *ServerError) Unwrap() error { return e.Err }

// serverError names the server an error is about.
func serverError(name string, err error) error {
	return &ServerError{Server: name, Err: err}
}

// named adds the server's name to err unless something on its way up named
// it already (a *ServerError or the breaker's *CircuitOpenError).
func named(name string, err error) error {
	if err == nil { // before the targets of errors.As, which escape: no allocation for a call that succeeded
		return nil
	}
	var se *ServerError
	var ce *CircuitOpenError
	if errors.As(err, &se) || errors.As(err, &ce) {
		return err
	}
	return serverError(name, err)
}

// timeoutError is ErrTimeout with the limit that passed and the context
// error that ended the request.
type timeoutError struct {
	limit time.Duration
	cause error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("%v (%v); raise it if the tool is slow", ErrTimeout, e.limit)
}

// Unwrap makes both ErrTimeout and the context error visible to errors.Is.
func (e *timeoutError) Unwrap() []error { return []error{ErrTimeout, e.cause} }

// slotError is ErrNoCallSlot naming the limit that was reached.
type slotError struct {
	limit string // the config key
	cause error
}

func (e *slotError) Error() string {
	return fmt.Sprintf("waited for a free call slot (%s) until the timeout; raise the limit or retry later", e.limit)
}

// Unwrap makes both ErrNoCallSlot and the context error visible to errors.Is.
func (e *slotError) Unwrap() []error { return []error{ErrNoCallSlot, e.cause} }
