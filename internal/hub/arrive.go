package hub

import (
	"sync"
	"time"
)

// arrivalWindow, the default of Options.ArrivalWindow, bounds how long the
// first of several servers that end their first connection close together
// waits for the others before the catalog is built for all of them. Each
// build covers every tool so far and is followed by the faces' sync, so a
// hundred upstreams arriving one by one would cost a hundred builds; within
// the window they cost one. The last server still starting never waits.
const arrivalWindow = 20 * time.Millisecond

// arrivals batches the catalog builds of servers registered by Start as
// they end their first connection attempt (see arrive).
type arrivals struct {
	mu sync.Mutex
	// starting counts servers registered by Start whose first attempt has
	// not yet arrived.
	starting int
	// waiting holds servers that arrived but are not yet in a build; they
	// are settled by the build that covers them.
	waiting []*server
	// leading is set while a server leads the next batch (see arrive); wake,
	// while the leader waits for the window, is closed to end its wait early
	// (the last starting server arrived).
	leading bool
	wake    chan struct{}
	// build is held by a leader for its batch's build and the faces' sync.
	build sync.Mutex
}

// starts notes n servers registered by Start.
func (a *arrivals) starts(n int) {
	a.mu.Lock()
	a.starting += n
	a.mu.Unlock()
}

// arrive ends the first connection attempt of s (registered by Start): its
// tools join the catalog and it is settled. While other servers are still
// on their first attempt, the first to arrive leads a batch: it waits up to
// the arrival window (less if the last of them arrives), then for the
// previous batch's build and sync to end, and builds once for every server
// that arrived meanwhile; those return at once. A server arriving alone, with no
// build running, builds at once. The servers stay unsettled until their
// build, so a call waiting for one (AwaitTool, Settle) finds its tools in
// the catalog when it wakes.
func (h *Hub) arrive(s *server) {
	a := &h.arrivals
	a.mu.Lock()
	a.starting--
	a.waiting = append(a.waiting, s)
	if a.leading { // the leader builds for s too
		a.wakeIfLast()
		a.mu.Unlock()
		return
	}
	a.leading = true
	var wake chan struct{}
	if a.starting > 0 {
		wake = make(chan struct{})
		a.wake = wake
	}
	a.mu.Unlock()
	if wake != nil {
		h.awaitArrivals(wake)
	}
	a.build.Lock() // the previous batch's build; arrivals meanwhile join this one
	defer a.build.Unlock()
	a.mu.Lock()
	batch := a.waiting
	a.waiting, a.leading, a.wake = nil, false, nil
	a.mu.Unlock()
	h.rebuild()
	for _, w := range batch {
		w.markSettled()
	}
}

// wakeIfLast ends the leader's wait once no server is left starting; under mu.
func (a *arrivals) wakeIfLast() {
	if a.starting == 0 && a.wake != nil {
		close(a.wake)
		a.wake = nil
	}
}

// abandonStart notes a server registered by Start that was removed before
// its first attempt began; it wakes a waiting leader if it was the last.
func (h *Hub) abandonStart() {
	a := &h.arrivals
	a.mu.Lock()
	defer a.mu.Unlock()
	a.starting--
	a.wakeIfLast()
}

// awaitArrivals waits for the window, the last starting server, or Close.
func (h *Hub) awaitArrivals(wake chan struct{}) {
	timer := time.NewTimer(h.opts.ArrivalWindow)
	defer timer.Stop()
	select {
	case <-wake:
	case <-timer.C:
	case <-h.stopLogins: // closed by Close
	}
}
