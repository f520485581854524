//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// TestUpstreamKilledReconnectsWithFreshTools kills (SIGKILL) or freezes
// (SIGSTOP, found by the keepalive pings) an upstream child: weft marks it
// disconnected, reconnects after the backoff, and serves the tool set of the
// new process (the misbehave server names a tool after its start count).
func TestUpstreamKilledReconnectsWithFreshTools(t *testing.T) {
	bin := misbehaveBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSTOP} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := newMarker(t)
			e := newEnv(t)
			dir := t.TempDir()
			pidFile, counter := filepath.Join(dir, "pid"), filepath.Join(dir, "starts")
			e.writeConfig(t, fmt.Sprintf(`[limits]
ping_interval = "300ms"

[tools.mcp_servers.rec]
target = %q
args = %s
`, bin, tomlList("--marker", marker, "--pid-file", pidFile, "--counter-file", counter)))
			s := e.serve()
			changed := make(chan struct{}, 1)
			cs := connect(t, s.url, changed)
			if names := toolNames(t, cs); !has(names, "rec__gen1") {
				t.Fatalf("first start's tool rec__gen1 not served: %v", names)
			}
			first := readPID(t, pidFile)
			if err := syscall.Kill(first, sig); err != nil {
				t.Fatal(err)
			}
			hit := time.Now()
			down := awaitStatus(t, s, "rec", 10*time.Second, "disconnected", func(st hub.ServerStatus, found bool) bool {
				return found && st.Status == hub.StatusDisconnected
			})
			if down.LastError == "" || down.NextRetry.IsZero() {
				t.Fatalf("disconnected without a reason or a next retry: %+v", down)
			}
			detected := time.Since(hit)
			awaitStatus(t, s, "rec", 15*time.Second, "active again", func(st hub.ServerStatus, found bool) bool {
				return found && st.Status == hub.StatusActive && st.ConnectedAt.After(hit)
			})
			recovered := time.Since(hit)
			t.Logf("%v: disconnected seen after %v (%s), active again after %v",
				sig, detected.Round(time.Millisecond), down.LastError, recovered.Round(time.Millisecond))
			waitFor(t, changed, func() bool {
				names := toolNames(t, cs)
				return has(names, "rec__gen2") && !has(names, "rec__gen1")
			}, "rec__gen2 instead of rec__gen1 after the restart")
			if o := timedCall(cs, "rec__gen2", nil, 10*time.Second); o.failed || !strings.Contains(o.text, "gen2") {
				t.Fatalf("call to the restarted server: %+v", o)
			}
			if second := readPID(t, pidFile); second == first {
				t.Fatalf("the upstream was not restarted: pid %d both times", first)
			}
			// Its group gets SIGTERM, then SIGKILL after a grace period.
			awaitGone(t, first, 10*time.Second)
			stopWeft(t, s, cs, marker)
		})
	}
}

// readPID reads the process id the misbehave server wrote.
func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

// awaitGone polls until process pid has ended, failing after limit.
func awaitGone(t *testing.T, pid int, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running %v after its session was lost", pid, limit)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
