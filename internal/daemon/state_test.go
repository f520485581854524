package daemon_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/weft-dev/weft/internal/daemon"
)

// TestInstancesPerProcess: each weft has its own state entry; one stopping
// removes only its own; entries of dead processes are cleaned up.
func TestInstancesPerProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sleep(1) as a second live process")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	cfg := filepath.Join(home, "weft.toml")

	removeMine, err := daemon.Announce(cfg, "127.0.0.1:1111")
	if err != nil {
		t.Fatal(err)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	entries := filepath.Dir(mustEntry(t, home))
	writeEntry(t, entries, daemon.Instance{Addr: "127.0.0.1:2222", PID: other.Process.Pid})
	stale := writeEntry(t, entries, daemon.Instance{Addr: "127.0.0.1:3333", PID: dead.ProcessState.Pid()})

	got := daemon.LiveInstances(cfg)
	if len(got) != 2 {
		t.Fatalf("live instances %+v, want this process and the sleeping one", got)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the entry of a dead process was not removed: %v", err)
	}
	removeMine()
	got = daemon.LiveInstances(cfg)
	if len(got) != 1 || got[0].PID != other.Process.Pid {
		t.Fatalf("after this weft stopped: %+v, want only the other one", got)
	}
	if others := daemon.LiveInstances(filepath.Join(home, "other.toml")); len(others) != 0 {
		t.Fatalf("a weft on another config sees %+v", others)
	}
}

// mustEntry finds the one state entry under home.
func mustEntry(t *testing.T, home string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(home, ".weft", "run", "*", "*.json"))
	if len(m) != 1 {
		t.Fatalf("state entries %v, want one", m)
	}
	return m[0]
}

func writeEntry(t *testing.T, dir string, in daemon.Instance) string {
	t.Helper()
	b, _ := json.Marshal(in)
	p := filepath.Join(dir, strconv.Itoa(in.PID)+".json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
