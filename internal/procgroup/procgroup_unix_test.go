//go:build unix

package procgroup

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain turns the test binary into the helper processes the tests start:
// a "tree" leader starts one child in its group and, on Linux, one that
// leaves it with setsid, prints their pids and sleeps.
func TestMain(m *testing.M) {
	switch os.Getenv("PROCGROUP_HELPER") {
	case "sleep":
		sleepForever()
	case "tree":
		runTree()
	default:
		os.Exit(m.Run())
	}
}

func runTree() {
	var pids []string
	setsids := []bool{false}
	if isLinux { // strays are tracked on Linux only; elsewhere one would leak
		setsids = append(setsids, true)
	}
	for _, setsid := range setsids {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "PROCGROUP_HELPER=sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
		if err := cmd.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
	}
	fmt.Println(strings.Join(pids, " "))
	sleepForever()
}

// sleepForever blocks in a sleep, not on a channel: a helper blocked on a
// channel with nothing else running is a deadlock to the Go runtime, which
// ends it with exit status 2 before the signal under test arrives.
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// startTree starts the helper tree and returns the group and the pids of the
// grandchildren (in the group, out of it).
func startTree(t *testing.T) (*Group, *exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROCGROUP_HELPER=tree")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the helper's pids: %v", err)
	}
	var pids []int
	for _, f := range strings.Fields(line) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("helper said %q", line)
		}
		pids = append(pids, pid)
	}
	return g, cmd, pids
}

// gone reports whether pid no longer runs (a zombie counts as gone: it waits
// only for its parent to reap it).
func gone(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
	}
	return syscall.Kill(pid, 0) != nil
}

// awaitGone polls until every pid is gone: another process's death cannot be
// awaited otherwise.
func awaitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d still runs", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func TestKillEndsTheWholeGroup(t *testing.T) {
	g, cmd, pids := startTree(t)
	if pgid, err := syscall.Getpgid(g.Pid()); err != nil || pgid != g.Pid() {
		t.Fatalf("leader's group = %d (%v), want its own pid %d", pgid, err, g.Pid())
	}
	if err := g.Kill(); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	_ = cmd.Wait()
	awaitGone(t, pids) // on Linux, the setsid grandchild too
}

func TestTerminateSendsSIGTERM(t *testing.T) {
	g, cmd, _ := startTree(t)
	if err := g.Terminate(); err != nil {
		t.Fatalf("Terminate: %v", err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("wait: %v, want the leader ended by a signal", err)
	}
	if ws := ee.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("leader ended with %v, want SIGTERM", ws)
	}
}

func TestSignalsAfterExitAreHarmless(t *testing.T) {
	g, cmd, _ := startTree(t)
	_ = g.Kill()
	_ = cmd.Wait()
	if err := g.Kill(); err != nil {
		t.Errorf("Kill after exit: %v", err)
	}
	if err := g.Terminate(); err != nil {
		t.Errorf("Terminate after exit: %v", err)
	}
	g.Close()
	g.Close()
}
