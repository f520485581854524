package hub

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// fakeClock is a breaker clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A step of a breaker script: either a call with its outcome, or time passing.
type step struct {
	call    outcome
	advance time.Duration
	// want after the step: the state, and whether the call was admitted.
	admitted bool
	state    BreakerState
}

func call(o outcome, admitted bool, state BreakerState) step {
	return step{call: o, admitted: admitted, state: state}
}

func wait(d time.Duration, state BreakerState) step {
	return step{advance: d, state: state}
}

func TestBreakerStateSequences(t *testing.T) {
	const reset = time.Minute
	ok, fail, ign := outcomeSuccess, outcomeFailure, outcomeIgnored
	closed, open, half := BreakerClosed, BreakerOpen, BreakerHalfOpen
	tests := []struct {
		name  string
		steps []step
	}{
		{"opens after threshold consecutive failures", []step{
			call(fail, true, closed), call(fail, true, closed), call(fail, true, open),
			call(ok, false, open),
		}},
		{"a success resets the count", []step{
			call(fail, true, closed), call(fail, true, closed), call(ok, true, closed),
			call(fail, true, closed), call(fail, true, closed), call(fail, true, open),
		}},
		{"cancelled and invalid calls do not count", []step{
			call(fail, true, closed), call(ign, true, closed), call(fail, true, closed), call(ign, true, closed),
		}},
		{"half-open after reset timeout, probe success closes", []step{
			call(fail, true, closed), call(fail, true, closed), call(fail, true, open),
			wait(reset-time.Second, open), call(ok, false, open),
			wait(time.Second, half), call(ok, true, closed),
			call(fail, true, closed), call(fail, true, closed),
		}},
		{"probe failure reopens for a full reset timeout", []step{
			call(fail, true, closed), call(fail, true, closed), call(fail, true, open),
			wait(reset, half), call(fail, true, open),
			wait(reset-time.Second, open), call(ok, false, open),
			wait(time.Second, half), call(ok, true, closed),
		}},
		{"a cancelled probe lets the next call probe", []step{
			call(fail, true, closed), call(fail, true, closed), call(fail, true, open),
			wait(reset, half), call(ign, true, half), call(ok, true, closed),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(1_000_000, 0)}
			b := newBreaker("srv", 3, reset, clk.now)
			for i, s := range tt.steps {
				if s.advance > 0 {
					clk.advance(s.advance)
				} else {
					probe, err := b.allow()
					if admitted := err == nil; admitted != s.admitted {
						t.Fatalf("step %d: admitted=%v, want %v (err %v)", i, admitted, s.admitted, err)
					}
					if err == nil {
						b.record(probe, s.call)
					}
				}
				if got, _ := b.snapshot(); got != s.state {
					t.Fatalf("step %d: state %s, want %s", i, got, s.state)
				}
			}
		})
	}
}

func TestBreakerLetsExactlyOneProbeThrough(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := newBreaker("srv", 1, time.Second, clk.now)
	probe, _ := b.allow()
	b.record(probe, outcomeFailure)
	clk.advance(time.Second)
	first, err := b.allow()
	if err != nil || !first {
		t.Fatalf("first call after reset: probe=%v err=%v, want the probe", first, err)
	}
	if _, err := b.allow(); !errors.Is(err, ErrCircuitOpen) {
		t.Fatalf("second call while probing: %v, want ErrCircuitOpen", err)
	}
	// A straggler admitted before the breaker opened must not close it.
	b.record(false, outcomeSuccess)
	if st, _ := b.snapshot(); st != BreakerHalfOpen {
		t.Fatalf("after a straggler's success: %s, want half-open", st)
	}
}

func TestCircuitOpenErrorNamesServerFailuresAndWait(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := newBreaker("github", 2, 90*time.Second, clk.now)
	for range 2 {
		p, _ := b.allow()
		b.record(p, outcomeFailure)
	}
	clk.advance(30 * time.Second)
	_, err := b.allow()
	var coe *CircuitOpenError
	if !errors.As(err, &coe) {
		t.Fatalf("err = %v, want *CircuitOpenError", err)
	}
	for _, want := range []string{"github", "2 consecutive failures", "next probe in 60s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestClassify(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		err  error
		want outcome
	}{
		{"success", live, nil, outcomeSuccess},
		{"transport error", live, errors.New("broken pipe"), outcomeFailure},
		{"timeout", live, fmt.Errorf("call: %w", context.DeadlineExceeded), outcomeFailure},
		{"caller cancelled", cancelled, context.Canceled, outcomeIgnored},
		{"invalid params", live, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams}, outcomeSuccess},
		{"method not found", live, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound}, outcomeSuccess},
		{"internal error", live, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}, outcomeFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify(tt.ctx, tt.err); got != tt.want {
				t.Fatalf("classify = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBreakerRace hammers one breaker from many goroutines; the race
// detector checks the locking and the invariant checks the probe rule.
func TestBreakerRace(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	b := newBreaker("srv", 3, time.Millisecond, clk.now)
	var wg sync.WaitGroup
	var mu sync.Mutex
	probes := 0
	for g := range 32 {
		wg.Go(func() {
			for i := range 500 {
				probe, err := b.allow()
				if err != nil {
					clk.advance(time.Millisecond)
					continue
				}
				if probe {
					mu.Lock()
					probes++
					if probes > 1 {
						t.Error("two probes in flight at once")
					}
					mu.Unlock()
				}
				o := outcome((g + i) % 3)
				if probe {
					mu.Lock()
					probes--
					mu.Unlock()
				}
				b.record(probe, o)
				_, _ = b.snapshot()
			}
		})
	}
	wg.Wait()
}
