package ui

import (
	"context"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// TestLiveKeepsTheNewestCallsNewestFirst ends more calls than the live
// view keeps and checks it holds the last recentCalls, newest first.
func TestLiveKeepsTheNewestCallsNewestFirst(t *testing.T) {
	l := NewLive(nil)
	const ended = recentCalls*2 + 7
	for i := 1; i <= ended; i++ {
		c := &hub.Call{ID: uint64(i), Tool: "t", Server: "s", Start: time.Now(), Outcome: hub.OutcomeOK}
		l.CallStarted(context.Background(), c)
		l.CallEnded(context.Background(), c)
	}
	_, recent := l.calls()
	if len(recent) != recentCalls {
		t.Fatalf("%d recent calls, want %d", len(recent), recentCalls)
	}
	for i, v := range recent {
		if want := uint64(ended - i); v.ID != want {
			t.Fatalf("recent[%d] is call %d, want %d", i, v.ID, want)
		}
	}
}

func TestLiveWithFewCalls(t *testing.T) {
	l := NewLive(nil)
	if _, recent := l.calls(); recent == nil || len(recent) != 0 {
		t.Fatalf("recent = %#v, want an empty, non-nil list", recent)
	}
	for i := 1; i <= 3; i++ {
		l.CallEnded(context.Background(), &hub.Call{ID: uint64(i)})
	}
	_, recent := l.calls()
	if len(recent) != 3 || recent[0].ID != 3 || recent[2].ID != 1 {
		t.Fatalf("recent = %+v, want calls 3, 2, 1", recent)
	}
}

func BenchmarkLiveCallEnded(b *testing.B) {
	l := NewLive(nil)
	c := &hub.Call{Tool: "t", Server: "s", Start: time.Now(), Outcome: hub.OutcomeOK}
	for b.Loop() {
		c.ID++
		l.CallEnded(context.Background(), c)
	}
}

// BenchmarkLiveCall is one call's start and end with nobody watching the
// dashboard: the call's view is boxed for the feed only when it is watched.
func BenchmarkLiveCall(b *testing.B) {
	l := NewLive(nil)
	c := &hub.Call{Tool: "t", Server: "s", Start: time.Now(), Outcome: hub.OutcomeOK}
	b.ReportAllocs()
	for b.Loop() {
		c.ID++
		l.CallStarted(context.Background(), c)
		l.CallEnded(context.Background(), c)
	}
}
