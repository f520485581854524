//go:build !linux

package main

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errNoProc: CPU and memory figures come from /proc, which only Linux has;
// elsewhere the bench still measures latency and throughput.
var errNoProc = errors.New("CPU and memory figures need Linux's /proc")

// groupAttr: no process-group handling outside Linux; stop kills the child
// itself.
func groupAttr() *syscall.SysProcAttr { return nil }

// killGroup kills p (its own children are weft's to end).
func killGroup(p *os.Process) { _ = p.Kill() }

// killPID kills one process.
func killPID(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// orphans cannot be found without /proc.
func (w *workspace) orphans() []int { return nil }

// cpuTime is unavailable without /proc.
func cpuTime(int) (time.Duration, error) { return 0, errNoProc }

// childOf cannot see a process's children without /proc.
func childOf(int, string) int { return 0 }

// rss is unavailable without /proc.
func rss(int) (cur, peak float64, err error) { return 0, 0, errNoProc }
