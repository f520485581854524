package daemon

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// BenchmarkLineUnderWatch is an audit line written to a file kept open,
// 200 µs apart as serial calls are: with no watch, in the watched config
// directory itself, and in a directory of its own below it (which the
// config watch does not see); cpu-µs/op is the whole process's CPU per
// line, the watcher's wake-ups included.
func BenchmarkLineUnderWatch(b *testing.B) {
	for _, bc := range []struct {
		name   string
		watch  bool
		subdir string
	}{{"none", false, ""}, {"beside-config", true, ""}, {"logs-subdir", true, "logs"}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			if bc.watch {
				w, err := fsnotify.NewWatcher()
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
				if err := w.Add(dir); err != nil {
					b.Fatal(err)
				}
				go func() {
					for range w.Events { // as watchConfig: take each event, drop it
					}
				}()
			}
			logDir := filepath.Join(dir, bc.subdir)
			if err := os.MkdirAll(logDir, 0o700); err != nil {
				b.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(logDir, "audit.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
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
