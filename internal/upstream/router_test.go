package upstream

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestRouterForgetsAnsweredCallsAfterGrace checks that an answered call's
// token stays mapped for progressGrace and is forgotten after it, without a
// timer per call.
func TestRouterForgetsAnsweredCallsAfterGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRouter()
		id, done := r.begin(context.Background(), nil, "tok", func(error) {})
		done()
		time.Sleep(progressGrace / 2)
		if _, ok := r.byToken(id); !ok {
			t.Fatal("answered call forgotten before the grace period ended")
		}
		time.Sleep(progressGrace)
		if _, ok := r.byToken(id); ok {
			t.Fatal("answered call still mapped after the grace period")
		}
		if len(r.calls) != 0 {
			t.Fatalf("%d calls still held", len(r.calls))
		}
	})
}

// TestRouterRetiredQueueStaysBounded checks that a steady stream of calls
// keeps only the calls of the last grace period.
func TestRouterRetiredQueueStaysBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRouter()
		for range 10_000 {
			_, done := r.begin(context.Background(), nil, nil, func(error) {})
			done()
			time.Sleep(time.Millisecond)
		}
		want := int(progressGrace/time.Millisecond) + 1
		if n := len(r.calls); n > want {
			t.Fatalf("%d calls held, want at most %d", n, want)
		}
		if n := len(r.retired); n > 2*want {
			t.Fatalf("retired queue of %d, want at most %d", n, 2*want)
		}
	})
}

// TestRouterKeepsAtMostMaxRetiredCalls checks that a burst of answered
// calls within the grace period keeps only the newest maxRetired mapped.
func TestRouterKeepsAtMostMaxRetiredCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRouter()
		ids := make([]int64, 0, 1000)
		for range 1000 {
			id, done := r.begin(context.Background(), nil, "tok", func(error) {})
			done()
			ids = append(ids, id)
		}
		if n := len(r.calls); n != maxRetired {
			t.Fatalf("%d answered calls held, want %d", n, maxRetired)
		}
		if _, ok := r.byToken(ids[len(ids)-1]); !ok {
			t.Fatal("newest answered call forgotten within the grace period")
		}
		if _, ok := r.byToken(ids[len(ids)-1-maxRetired]); ok {
			t.Fatal("answered call beyond maxRetired still mapped")
		}
		if n := len(r.retired) - r.head; n != maxRetired {
			t.Fatalf("retired queue of %d live entries, want %d", n, maxRetired)
		}
	})
}

type ephemeralPeer struct{ Peer }

func (ephemeralPeer) Ephemeral() bool { return true }

// TestRouterForgetsEphemeralPeersCallsAtOnce checks that a call made for a
// peer whose session ends with its request is not kept after its result.
func TestRouterForgetsEphemeralPeersCallsAtOnce(t *testing.T) {
	r := newRouter()
	id, done := r.begin(context.Background(), ephemeralPeer{}, "tok", func(error) {})
	if _, ok := r.byToken(id); !ok {
		t.Fatal("call in flight not mapped")
	}
	done()
	if _, ok := r.byToken(id); ok || len(r.calls) != 0 || len(r.retired) != 0 {
		t.Fatalf("ephemeral peer's call kept after its result (%d calls, %d retired)", len(r.calls), len(r.retired))
	}
}

// begin is start with end as a func, for these tests.
func (r *router) begin(ctx context.Context, peer Peer, token any, cancel context.CancelCauseFunc) (int64, func()) {
	c := r.start(ctx, peer, token, cancel)
	return c.id, func() { r.end(c) }
}
