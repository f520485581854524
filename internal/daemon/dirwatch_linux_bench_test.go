package daemon

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLineUnderWatch is an audit line written to a file kept open in
// the config directory, 200 µs apart as serial calls are, with no watch,
// fsnotify's watch and weft's (which leaves such writes out); cpu-µs/op is
// the whole process's CPU per line, the watcher's wake-ups included.
func BenchmarkLineUnderWatch(b *testing.B) {
	for _, bc := range []struct {
		name  string
		watch func() (dirWatcher, error)
	}{{"none", nil}, {"fsnotify", newFSWatcher}, {"weft", newDirWatcher}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			if bc.watch != nil {
				w, err := bc.watch()
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				if err := w.Add(dir); err != nil {
					b.Fatal(err)
				}
				go func() {
					for range w.Events() { // as watchConfig: take each event, drop it
					}
				}()
			}
			f, err := os.OpenFile(filepath.Join(dir, "audit.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			line := []byte(`{"time":"2026-11-26T20:00:00Z","kind":"tool_call","face":"http","server":"bench","tool":"bench__echo","outcome":"ok"}` + "\n")
			start := processCPU()
			for b.Loop() {
				if _, err := f.Write(line); err != nil {
					b.Fatal(err)
				}
				time.Sleep(200 * time.Microsecond)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
