package cli

import (
	"runtime"
	"runtime/debug"
	"testing"

	"go.uber.org/goleak"
)

func TestGCPercentForCapsHeadroom(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		live uint64
		want int
	}{
		{"no collection yet", 0, defaultGCPercent},
		{"small heap keeps the default", 4 * mib, defaultGCPercent},
		{"8 MiB live is the last at the default", 8 * mib, defaultGCPercent},
		{"10 MiB live gets 12 MiB of head-room", 10 * mib, 120},
		{"16 MiB live (10,000 tools)", 16 * mib, 75},
		{"24 MiB live reaches the floor", 24 * mib, minGCPercent},
		{"very large heap stops at the floor", 200 * mib, minGCPercent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := gcPercentFor(tt.live, defaultGCPercent); got != tt.want {
				t.Errorf("gcPercentFor(%d MiB) = %d, want %d", tt.live/mib, got, tt.want)
			}
		})
	}
}

// TestHeapTunerSetsPercentFromLiveHeap keeps 40 MiB live, collects, and
// checks that the tuner lowers the GC percent to what gcPercentFor says.
func TestHeapTunerSetsPercentFromLiveHeap(t *testing.T) {
	restoreGC(t)
	debug.SetGCPercent(200)
	live := make([][]byte, 40)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	tuner := newHeapTuner(200)
	t.Cleanup(tuner.stop) // afterGC arms it, and the fall schedules a release
	runtime.GC()
	tuner.afterGC()
	runtime.KeepAlive(live)

	got := debug.SetGCPercent(200)
	if got >= 200 || got < minGCPercent {
		t.Fatalf("GC percent with 40 MiB live = %d, want below 200 and at least %d", got, minGCPercent)
	}
	if int64(got) != tuner.percent.Load() {
		t.Errorf("tuner recorded %d, runtime has %d", tuner.percent.Load(), got)
	}
}

// TestStoppedHeapTunerLeavesPercentAndLeaksNothing: after stop, a cycle's
// finalizer changes nothing, and the tuner has no goroutine of its own.
func TestStoppedHeapTunerLeavesPercentAndLeaksNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // other tests of the package leave their own
	restoreGC(t)
	live := make([]byte, 40<<20)
	stop := startHeapTuner(200)
	stop()
	debug.SetGCPercent(200)
	tuner := newHeapTuner(200)
	tuner.stopped.Store(true)
	runtime.GC()
	tuner.afterGC()
	runtime.KeepAlive(live)
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("GC percent after a stopped tuner's cycle = %d, want 200", got)
	}
}

// TestHeapTunerSchedulesOneReleaseWhenPercentFalls: a fall of the percent
// arms the release timer, stop cancels it before it fires, and nothing is
// left running.
func TestHeapTunerSchedulesOneReleaseWhenPercentFalls(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // other tests of the package leave their own
	restoreGC(t)
	live := make([]byte, 40<<20)
	tuner := newHeapTuner(200)
	runtime.GC()
	tuner.afterGC()
	runtime.KeepAlive(live)
	tuner.mu.Lock()
	armed := tuner.timer != nil
	tuner.mu.Unlock()
	if !armed {
		t.Fatal("no release scheduled after the percent fell")
	}
	tuner.stop()
	tuner.release() // a timer that fired just before stop finds it stopped
	if tuner.releases != 0 {
		t.Errorf("releases after stop = %d, want 0", tuner.releases)
	}
}

// TestHeapTunerReleasesAtMostOncePerInterval: two releases in a row free
// memory once.
func TestHeapTunerReleasesAtMostOncePerInterval(t *testing.T) {
	tuner := newHeapTuner(200)
	defer tuner.stop()
	tuner.release()
	tuner.release()
	if tuner.releases != 1 {
		t.Errorf("releases = %d, want 1 within %v", tuner.releases, releaseEvery)
	}
}
