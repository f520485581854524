package cli

import (
	"os"
	"runtime/debug"
)

// Garbage-collector defaults for weft's own process. Before the HTTP relay,
// each proxied message was decoded and encoded twice and the default
// GOGC=100 spent a large share of a call in GC, so weft ran at GOGC=400.
// With the relay most per-call garbage is gone, and GOGC=200 keeps RSS under
// load at 33–40 MB (40–53 MB at 400) for 7–20 % more gateway CPU per call
// (docs/guides/performance.md, "After the relay merged"). The soft memory
// limit is a ceiling for large catalogs: the collector works harder as the
// heap nears it rather than letting the 200 % head-room grow past it.
const (
	defaultGCPercent   = 200
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
