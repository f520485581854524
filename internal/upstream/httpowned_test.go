package upstream

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRoundsContextOutlivesTheStreamsFinish: the rounds after a result
// that is not plain run in a context of their own when the call's is
// detached (its POST's stream finish may have taken it over): it lives on
// when the call's context ends, and ends with the caller's, by the call's
// deadline, or by Close.
func TestRoundsContextOutlivesTheStreamsFinish(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(o *ownedCall, cancelCaller context.CancelFunc)
		want error
	}{
		{"caller", func(_ *ownedCall, cancelCaller context.CancelFunc) { cancelCaller() }, context.Canceled},
		{"close", func(o *ownedCall, _ context.CancelFunc) { o.close(ErrClosedInFlight) }, context.Canceled},
		{"deadline", func(*ownedCall, context.CancelFunc) {}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			caller, cancelCaller := context.WithCancel(context.Background())
			defer cancelCaller()
			deadline := time.Now().Add(time.Hour)
			if tc.want == context.DeadlineExceeded {
				deadline = time.Now().Add(50 * time.Millisecond)
			}
			o := ownContext(caller, deadline)
			if !o.detached {
				t.Fatal("a caller without a deadline: the call's context is not detached")
			}
			o.req.handedOff = true // as finishAnswered does; its goroutine then ends the call's context
			o.req.stop()
			o.cancel()
			rounds, cancel := o.roundsContext()
			defer cancel()
			if rounds.Err() != nil {
				t.Fatalf("rounds' context ended with the call's: %v", rounds.Err())
			}
			if d, ok := rounds.Deadline(); !ok || !d.Equal(deadline) {
				t.Errorf("rounds' deadline %v, want the call's %v", d, deadline)
			}
			tc.end(o, cancelCaller)
			<-rounds.Done()
			if !errors.Is(rounds.Err(), tc.want) {
				t.Errorf("rounds' context ended with %v, want %v", rounds.Err(), tc.want)
			}
			o.release()
		})
	}
}
