package cli

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Head-room limits for heapTuner. GOGC=150 lets the heap grow to two and
// a half times what the last collection found live. That is a few MB for a
// gateway with a handful of upstreams (about 3–5 MB live under a c=64 call
// load), but a large catalog (10,000 tools hold about 16 MB) makes it 25–40
// MB of garbage kept resident, and the pages it touched stay in RSS after
// the burst that filled them. The tuner caps the head-room at
// headroomBudget: up to 8 MiB live, weft runs at its default percent
// unchanged (so the per-call GC cost measured at the default holds for a
// small catalog); above it, the percent falls so that the heap goal is live
// + 12 MiB, never below minGCPercent, where the head-room grows with the
// heap again so that a very large catalog does not collect continuously.
// With 10,000 tools this cost about 8 µs of gateway CPU per call (a
// collection every ~1,100 calls instead of every ~3,000) for 25 MB less RSS
// against the earlier default of 200; against 150 (24 MiB of head-room, not
// 32) both gaps are smaller (docs/guides/performance.md, "Memory with
// 10,000 tools").
const (
	headroomBudget = 12 << 20
	minGCPercent   = 50
)

// liveHeapMetric is the runtime's count of heap bytes marked live by the
// last completed collection.
const liveHeapMetric = "/gc/heap/live:bytes"

// gcPercentFor is the GC percent for a live heap of live bytes: ceiling
// (weft's default) while ceiling% of live fits in headroomBudget, then the
// percent that makes the head-room headroomBudget, floored at minGCPercent.
func gcPercentFor(live uint64, ceiling int) int {
	if live == 0 || live*uint64(ceiling) <= headroomBudget*100 {
		return ceiling
	}
	return max(int(headroomBudget*100/live), minGCPercent)
}

// After the percent fell by at least a tenth (the live heap grew, as when a
// large catalog arrives), the tuner returns the freed pages to the OS once,
// releaseDelay after the last such fall, so that the burst's garbage does
// not stay in RSS under the lower heap goal; the runtime's own scavenger
// would keep up to 110 % of the goal. A release is a forced collection
// (docs/guides/performance.md, "Memory with 10,000 tools", gives its cost),
// so there is at most one per releaseEvery.
const (
	releaseDelay = time.Second
	releaseEvery = time.Minute
)

// heapTuner sets the GC percent after each collection from the live heap
// it found. It runs on the runtime's finalizer goroutine, once per GC cycle
// (never per call): a sentinel object's finalizer reads one runtime metric,
// sets the percent if it moved, and re-arms itself with a new sentinel until
// the tuner is stopped. Its only goroutine is the release timer's, which
// stop ends (waiting for a release in progress).
type heapTuner struct {
	ceiling int
	stopped atomic.Bool
	percent atomic.Int64 // the percent last set
	sample  []metrics.Sample

	mu          sync.Mutex // guards the fields below and serialises release with stop
	timer       *time.Timer
	lastRelease time.Time
	releases    int // how many releases ran, for tests
}

// startHeapTuner arms the tuner with the percent for a small heap
// (ceiling) and returns its stop function; a stopped tuner leaves the
// percent where it last set it.
func startHeapTuner(ceiling int) (stop func()) {
	t := newHeapTuner(ceiling)
	t.arm()
	return t.stop
}

// newHeapTuner returns a tuner that is not armed yet.
func newHeapTuner(ceiling int) *heapTuner {
	t := &heapTuner{ceiling: ceiling, sample: []metrics.Sample{{Name: liveHeapMetric}}}
	t.percent.Store(int64(ceiling))
	return t
}

// stop ends the tuner: no more percent changes, no pending release, and a
// release in progress has finished when stop returns.
func (t *heapTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped.Store(true)
	if t.timer != nil {
		t.timer.Stop()
	}
}

// sentinel is the object whose collection marks the end of a GC cycle; it
// holds a pointer so that it is heap-allocated and tracked.
type sentinel struct{ t *heapTuner }

// arm allocates a new sentinel whose finalizer runs after the next cycle.
func (t *heapTuner) arm() {
	s := &sentinel{t: t}
	runtime.SetFinalizer(s, func(s *sentinel) { s.t.afterGC() })
}

// afterGC adjusts the percent to the live heap, then re-arms.
func (t *heapTuner) afterGC() {
	if t.stopped.Load() {
		return
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() == metrics.KindUint64 {
		want := gcPercentFor(t.sample[0].Value.Uint64(), t.ceiling)
		if was := t.percent.Load(); int64(want) != was {
			debug.SetGCPercent(want)
			t.percent.Store(int64(want))
			if int64(want)*10 <= was*9 {
				t.scheduleRelease()
			}
		}
	}
	t.arm()
}

// scheduleRelease (re)starts the release timer: one release, releaseDelay
// after the last call.
func (t *heapTuner) scheduleRelease() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() {
		return
	}
	if t.timer == nil {
		t.timer = time.AfterFunc(releaseDelay, t.release)
		return
	}
	t.timer.Reset(releaseDelay)
}

// release returns freed memory to the OS unless one did within
// releaseEvery or the tuner stopped.
func (t *heapTuner) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped.Load() || (!t.lastRelease.IsZero() && time.Since(t.lastRelease) < releaseEvery) {
		return
	}
	debug.FreeOSMemory()
	t.lastRelease = time.Now()
	t.releases++
}
