package delegate

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBreakerOpen is returned at once, without taking a slot, while the
// delegation breaker is open after repeated failures.
var ErrBreakerOpen = errors.New("delegation breaker is open after repeated failures; wait for its reset timeout or fix the delegate (see the earlier errors)")

// SubprocessError is a delegate process that failed: it could not start,
// exited non-zero, or reported an error result.
type SubprocessError struct {
	Command  string
	ExitCode int    // -1 when the process never ran
	Stderr   string // the tail of its stderr
	Reason   string // what went wrong when not only the exit code says it
	Err      error  // the start error, if any
}

func (e *SubprocessError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed", e.Command)
	if e.ExitCode >= 0 {
		fmt.Fprintf(&b, " with exit code %d", e.ExitCode)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if tail := strings.TrimSpace(e.Stderr); tail != "" {
		fmt.Fprintf(&b, "; stderr: %s", oneLine(tail))
	}
	return b.String()
}

func (e *SubprocessError) Unwrap() error { return e.Err }

// UnparseableOutputError is output of the delegate that is not the
// stream-json it was asked for.
type UnparseableOutputError struct {
	Command string
	Raw     string // an excerpt of the offending output
	Err     error  // the parse error
}

func (e *UnparseableOutputError) Error() string {
	return fmt.Sprintf("%s printed output weft cannot parse (%v): %q; check that it is Claude Code and supports --output-format stream-json", e.Command, e.Err, e.Raw)
}

func (e *UnparseableOutputError) Unwrap() error { return e.Err }

// TimeoutError is a delegation attempt that ran out of time.
type TimeoutError struct {
	Attempt string
	Elapsed time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("delegation to %s timed out after %s; raise [delegation] timeout or give a smaller task", e.Attempt, e.Elapsed.Round(time.Millisecond))
}

// Attempt is one delegate of a fallback chain and how it failed.
type Attempt struct {
	Name string
	Err  error
}

// FallbackExhaustedError says every delegate of the chain failed.
type FallbackExhaustedError struct {
	Attempts []Attempt
}

func (e *FallbackExhaustedError) Error() string {
	parts := make([]string, len(e.Attempts))
	for i, a := range e.Attempts {
		parts[i] = fmt.Sprintf("%s: %v", a.Name, a.Err)
	}
	return "every delegate failed (" + strings.Join(parts, "; ") + ")"
}

// Unwrap gives errors.As access to each attempt's error.
func (e *FallbackExhaustedError) Unwrap() []error {
	out := make([]error, len(e.Attempts))
	for i, a := range e.Attempts {
		out[i] = a.Err
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// tail keeps the last n bytes written to it.
type tail struct {
	n   int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.n:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.buf) }
