package main

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestCPUTimeOfSelfGrowsWithWork(t *testing.T) {
	before, err := cpuTime(0)
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for deadline := time.Now().Add(30 * time.Millisecond); time.Now().Before(deadline); {
		x++ // spin: CPU, not sleep
	}
	after, err := cpuTime(0)
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Errorf("CPU time did not grow over a busy loop (%d iterations): %v → %v", x, before, after)
	}
}

func TestProcFiguresOfAChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary itself, idle until its stdin closes.
	cmd := exec.Command(exe, "-test.run=^TestHelperWaitForStdin$")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "BENCH_HELPER_WAIT=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	if got := childOf(os.Getpid(), exe); got != pid {
		t.Errorf("childOf(self, test binary) = %d, want %d", got, pid)
	}
	if _, err := cpuTime(pid); err != nil {
		t.Errorf("cpuTime(child): %v", err)
	}
	cur, peak, err := rss(pid)
	if err != nil || cur <= 0 || peak < cur {
		t.Errorf("rss(child) = %.1f MB, peak %.1f MB, %v; want 0 < current ≤ peak", cur, peak, err)
	}
}

// TestHelperWaitForStdin is the child of TestProcFiguresOfAChild: it waits
// for its stdin to close.
func TestHelperWaitForStdin(t *testing.T) {
	if os.Getenv("BENCH_HELPER_WAIT") != "1" {
		t.Skip("runs only as a helper child")
	}
	_, _ = os.Stdin.Read(make([]byte, 1))
}
