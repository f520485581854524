package cli

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCAppliesDefaultsUnlessUserSetThem checks both halves of tuneGC's
// contract: the defaults apply when GOGC and GOMEMLIMIT are unset, and a
// value the user set (which the runtime applied at start, simulated here by
// setting it first) is left alone.
func TestTuneGCAppliesDefaultsUnlessUserSetThem(t *testing.T) {
	const userPercent, userLimit = 77, 300 << 20
	tests := []struct {
		name        string
		gogc, limit string
		wantPercent int
		wantLimit   int64
	}{
		{"neither set", "", "", defaultGCPercent, defaultMemoryLimit},
		{"GOGC set", "77", "", userPercent, defaultMemoryLimit},
		{"GOMEMLIMIT set", "", "300MiB", defaultGCPercent, userLimit},
		{"both set", "77", "300MiB", userPercent, userLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restoreGC(t)
			t.Setenv("GOGC", tt.gogc)
			t.Setenv("GOMEMLIMIT", tt.limit)
			debug.SetGCPercent(userPercent)
			debug.SetMemoryLimit(userLimit)

			t.Cleanup(tuneGC())

			if got := debug.SetGCPercent(userPercent); got != tt.wantPercent {
				t.Errorf("GC percent = %d, want %d", got, tt.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
				t.Errorf("memory limit = %d, want %d", got, tt.wantLimit)
			}
		})
	}
}

// restoreGC puts the process's GC settings back after the test.
func restoreGC(t *testing.T) {
	t.Helper()
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}
