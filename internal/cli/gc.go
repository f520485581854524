package cli

import (
	"os"
	"runtime/debug"
)

// Garbage-collector defaults for weft's own process. Each proxied message
// is decoded and encoded twice (client side and upstream side), and the
// SDK allocates a fresh buffer per decode, so the default GOGC=100 spends a
// large share of a call in GC. bench/ measured GOGC=400 against 100 in one
// machine state: stdio c=1 added p50 0.78 → 0.56 ms, http c=1 1.23 → 0.89 ms
// (docs/guides/performance.md). The soft memory limit keeps the larger
// heap target from growing weft's RSS past what a user would notice: the
// collector works harder as the heap nears it.
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 128 << 20
)

// tuneGC applies the defaults unless the user set GOGC or GOMEMLIMIT, which
// the runtime has already applied.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
