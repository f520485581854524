//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat. Linux fixes
// USER_HZ at 100 on every architecture Go supports.
const clockTick = 10 * time.Millisecond

// groupAttr puts a child in its own process group, so that stop can end
// whatever it started, and kills it if the bench dies first.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills p and every process in its group.
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// killPID kills one process.
func killPID(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// orphans lists processes still running from the workspace's binaries.
func (w *workspace) orphans() []int {
	var out []int
	for _, pid := range allPIDs() {
		exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
		if err == nil && strings.HasPrefix(exe, w.dir+string(filepath.Separator)) {
			out = append(out, pid)
		}
	}
	return out
}

// allPIDs lists every process the bench can see.
func allPIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// statFields returns the fields of /proc/PID/stat after the command name
// (which may hold spaces): [0] is the state, [1] the parent, [11] utime,
// [12] stime.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, fmt.Errorf("read the CPU time of pid %d: %w", pid, err)
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return nil, fmt.Errorf("read the CPU time of pid %d: unexpected /proc/%d/stat", pid, pid)
	}
	return f, nil
}

// cpuTime is the user plus system CPU a process has used so far; pid 0 is
// the bench itself (where the measuring client runs), read by getrusage.
func cpuTime(pid int) (time.Duration, error) {
	if pid == 0 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0, fmt.Errorf("getrusage: %w", err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
	}
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("read the CPU time of pid %d: bad utime/stime %q %q", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * clockTick, nil
}

// childOf finds a child of parent whose executable is exe (the upstream
// that `weft` launched), or 0.
func childOf(parent int, exe string) int {
	for _, pid := range allPIDs() {
		f, err := statFields(pid)
		if err != nil || f[1] != strconv.Itoa(parent) {
			continue
		}
		if path, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && path == exe {
			return pid
		}
	}
	return 0
}

// rss reads a process's resident set size and its peak, in MiB.
func rss(pid int) (cur, peak float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read the memory of pid %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return cur, peak, nil
}
