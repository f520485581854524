package cli

import (
	"os"
	"runtime/debug"
)

// Garbage-collector defaults for weft's own process. Before the HTTP relay,
// each proxied message was decoded and encoded twice and the default
// GOGC=100 spent a large share of a call in GC, so weft ran at GOGC=400,
// then at 200 once the relay removed most per-call garbage. With the
// allocations per call cut further, GOGC=150 keeps the peak RSS of a c=64
// load with an HTTP upstream about 3.5 MB lower than 200 did (37–38 MB
// against 41) for no gateway CPU per call that alternating runs could tell
// apart (docs/guides/performance.md, "The floor of a relay at concurrency
// 64"). The soft memory limit is a ceiling for large catalogs: the
// collector works harder as the heap nears it rather than letting the
// head-room grow past it.
const (
	defaultGCPercent   = 150
	defaultMemoryLimit = 128 << 20
)

// tuneGC applies the defaults unless the user set GOGC or GOMEMLIMIT, which
// the runtime has already applied. Without GOGC it also starts heapTuner,
// which lowers the percent for a large live heap; the returned func stops it.
func tuneGC() (stop func()) {
	stop = func() {}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
		stop = startHeapTuner(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
	return stop
}
