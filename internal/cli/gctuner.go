package cli

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Head-room limits for heapTuner. GOGC=200 lets the heap grow to three
// times what the last collection found live. That is a few MB for a
// gateway with a handful of upstreams, but with a large catalog (10,000
// tools hold about 16 MB) it is 30 MB of garbage kept resident, and the
// pages it touched stay in RSS after the burst that filled them. The tuner
// caps the head-room at headroomBudget: up to 8 MiB live, weft runs at its
// default percent unchanged (so the per-call GC cost measured at GOGC=200
// holds for a small catalog); above it, the percent falls so that the heap
// goal is live + 16 MiB, never below minGCPercent, where the head-room grows
// with the heap again so that a very large catalog does not collect
// continuously.
const (
	headroomBudget = 16 << 20
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

// heapTuner sets the GC percent after each collection from the live heap
// it found. It runs on the runtime's finalizer goroutine, once per GC cycle
// (never per call): a sentinel object's finalizer reads one runtime metric,
// sets the percent if it moved, and re-arms itself with a new sentinel until
// the tuner is stopped. It starts no goroutine of its own.
type heapTuner struct {
	ceiling int
	stopped atomic.Bool
	percent atomic.Int64 // the percent last set, for tests
	sample  []metrics.Sample
}

// startHeapTuner arms the tuner with the percent the percent for a small heap
// (ceiling) and returns its stop function; a stopped tuner leaves the percent where
// it last set it.
func startHeapTuner(ceiling int) (stop func()) {
	t := newHeapTuner(ceiling)
	t.arm()
	return func() { t.stopped.Store(true) }
}

// newHeapTuner returns a tuner that is not armed yet.
func newHeapTuner(ceiling int) *heapTuner {
	t := &heapTuner{ceiling: ceiling, sample: []metrics.Sample{{Name: liveHeapMetric}}}
	t.percent.Store(int64(ceiling))
	return t
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
		if int64(want) != t.percent.Load() {
			debug.SetGCPercent(want)
			t.percent.Store(int64(want))
		}
	}
	t.arm()
}
