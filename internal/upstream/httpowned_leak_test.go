package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// opaqueCtx is a caller's context that package context cannot see into
// (not one of its own): every child or AfterFunc registered on it waits
// in a goroutine of its own until it is released, so a registration that
// a call never releases is a goroutine left behind.
type opaqueCtx struct {
	done     chan struct{}
	deadline time.Time
}

func (o *opaqueCtx) Deadline() (time.Time, bool) { return o.deadline, !o.deadline.IsZero() }
func (o *opaqueCtx) Done() <-chan struct{}       { return o.done }
func (o *opaqueCtx) Value(any) any               { return nil }
func (o *opaqueCtx) Err() error {
	select {
	case <-o.done:
		return context.Canceled
	default:
		return nil
	}
}

// registrations counts the goroutines that wait on a parent context for a
// child or an AfterFunc.
func registrations() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("created by context.(*cancelCtx).propagateCancel"))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// awaitRegistrations waits for the registrations to fall to at most n
// (a released one's goroutine ends on its own schedule) and returns the
// count it settled at.
func awaitRegistrations(n int) int {
	got := registrations()
	for end := time.Now().Add(5 * time.Second); got > n && time.Now().Before(end); got = registrations() {
		runtime.Gosched()
	}
	return got
}

// TestPostedCallsLeaveNothingOnTheCallersContext: a posted call's own
// context and its POST's release every registration they make on the
// caller's context (the AfterFunc of a detached call, the child of a
// caller with a deadline), whether the call ends with a result or an
// error and in both response modes; weft's raw list, posted without an
// owned call, does too. A call that left one behind would leave a
// goroutine per call here.
func TestPostedCallsLeaveNothingOnTheCallersContext(t *testing.T) {
	const calls = 40
	for _, mode := range httpModes {
		c := dial(t, serveHTTPOpts(t, postTestServer(), mode.opts, func(h http.Handler) http.Handler { return h }), Options{})
		for _, caller := range []struct {
			name     string
			deadline time.Time
		}{{"no deadline", time.Time{}}, {"deadline", time.Now().Add(time.Hour)}} {
			for _, call := range []struct {
				name string
				do   func(ctx context.Context) error
			}{
				{"result", func(ctx context.Context) error {
					raw, err := c.CallToolRaw(ctx, &fakePeer{}, "echo", json.RawMessage(`{"text":"x"}`), nil)
					if err == nil && !strings.Contains(string(raw.JSON), "echo:x") {
						t.Errorf("echo = %s", raw.JSON)
					}
					return err
				}},
				{"result until", func(ctx context.Context) error {
					_, err := c.CallToolRawUntil(ctx, time.Now().Add(time.Hour), &fakePeer{}, "echo", json.RawMessage(`{"text":"x"}`), nil)
					return err
				}},
				{"error", func(ctx context.Context) error {
					if _, err := c.CallToolRaw(ctx, &fakePeer{}, "no such tool", nil, nil); err == nil {
						t.Error("a call of an unknown tool succeeded")
					}
					return nil
				}},
				{"raw list", func(ctx context.Context) error {
					_, raw, err := c.listToolsRaw(ctx)
					if err == nil && !raw {
						t.Error("the tools were not listed through weft's own request")
					}
					return err
				}},
			} {
				t.Run(mode.name+"/"+caller.name+"/"+call.name, func(t *testing.T) {
					ctx := &opaqueCtx{done: make(chan struct{}), deadline: caller.deadline}
					defer close(ctx.done)
					if err := call.do(ctx); err != nil { // warms the connection
						t.Fatal(err)
					}
					before := awaitRegistrations(0)
					for range calls {
						if err := call.do(ctx); err != nil {
							t.Fatal(err)
						}
					}
					if after := awaitRegistrations(before); after > before {
						t.Errorf("%d calls left %d registrations on the caller's context", calls, after-before)
					}
				})
			}
		}
	}
}
