package circuit

import (
	"errors"
	"testing"
	"time"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	fail := func(b *Breaker) {
		p, err := b.Allow()
		if err == nil {
			b.Record(p, Failure)
		}
	}
	t.Run("threshold 0 never opens", func(t *testing.T) {
		b := New(0, time.Minute, clock)
		for range 10 {
			fail(b)
		}
		if st, n := b.Snapshot(); st != Closed || n != 10 {
			t.Fatalf("state %s with %d failures, want closed with 10", st, n)
		}
	})
	t.Run("open refuses, one probe after the reset timeout", func(t *testing.T) {
		b := New(2, time.Minute, clock)
		fail(b)
		fail(b)
		if _, err := b.Allow(); !errors.Is(err, ErrOpen) {
			t.Fatalf("allow while open: %v, want ErrOpen", err)
		}
		now = now.Add(time.Minute)
		probe, err := b.Allow()
		if err != nil || !probe {
			t.Fatalf("first call after the reset timeout: probe=%v err=%v", probe, err)
		}
		var oe *OpenError
		if _, err := b.Allow(); !errors.As(err, &oe) || oe.RetryIn != 0 {
			t.Fatalf("second call while probing: %v, want an OpenError with no wait", err)
		}
		b.Record(false, Success) // a straggler decides nothing
		if st, _ := b.Snapshot(); st != HalfOpen {
			t.Fatalf("after a straggler: %s, want half-open", st)
		}
		b.Record(probe, Success)
		if st, n := b.Snapshot(); st != Closed || n != 0 {
			t.Fatalf("after a good probe: %s with %d, want closed with 0", st, n)
		}
	})
	t.Run("reset closes an open breaker", func(t *testing.T) {
		b := New(1, time.Hour, clock)
		fail(b)
		b.Reset()
		if _, err := b.Allow(); err != nil {
			t.Fatalf("allow after Reset: %v", err)
		}
		if st, n := b.Snapshot(); st != Closed || n != 0 {
			t.Fatalf("after Reset: %s with %d, want closed with 0", st, n)
		}
	})
}
