//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestDaemonizingUpstreamDoesNotWedgeReload: an upstream that ignores SIGTERM
// and stdin's end and starts a setsid grandchild holding its stdout and
// stderr is removed by a config change that also adds a server. The removal
// ends (child reaped, grandchild killed), the added server connects, and
// weft still exits promptly on SIGTERM with nothing left behind.
func TestDaemonizingUpstreamDoesNotWedgeReload(t *testing.T) {
	bad, good := misbehaveBinary(t), testutil.FakeServerBinary(t)
	marker := newMarker(t)
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf(`[tools.mcp_servers.bad]
target = %q
args = ["--mode", "daemon", "--marker", %q]
`, bad, marker))
	s := e.serve()
	cs := connect(t, s.url, nil)
	if o := timedCall(cs, "bad__echo", map[string]any{"text": "hi"}, 10*time.Second); o.failed {
		t.Fatalf("bad__echo before the change: %+v", o)
	}
	awaitProcCount(t, marker, 2) // the server and its daemon

	e.writeConfig(t, fmt.Sprintf(`[tools.mcp_servers.late]
target = %q
args = ["--name", "late"]
`, good))
	awaitStatus(t, s, "late", 20*time.Second, "late active", func(st hub.ServerStatus, found bool) bool {
		return found && st.Status == hub.StatusActive
	})
	awaitStatus(t, s, "bad", 20*time.Second, "bad gone", func(_ hub.ServerStatus, found bool) bool { return !found })
	awaitProcCount(t, marker, 0)
	if o := timedCall(cs, "late__echo", map[string]any{"text": "x"}, 10*time.Second); o.failed {
		t.Fatalf("late__echo after the change: %+v", o)
	}
	stopWeft(t, s, cs, marker)
}

// TestUnreadStderrNeverBlocksMcpServer: a client that pipes weft mcp-server's
// stderr and never reads it, and an upstream that writes 200 KB to stderr at
// start: weft still answers initialize, lists and calls tools, and exits on
// SIGTERM.
func TestUnreadStderrNeverBlocksMcpServer(t *testing.T) {
	bad := misbehaveBinary(t)
	marker := newMarker(t)
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf(`[tools.mcp_servers.noisy]
target = %q
args = ["--mode", "stderr", "--stderr-bytes", "204800", "--marker", %q]
`, bad, marker))
	// The stderr pipe's read end stays open and unread for the whole test.
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stderrR.Close()
	cmd := exec.Command(weftBinary(t), "mcp-server", "--config", e.config, "--log-level", "debug")
	cmd.Dir, cmd.Env, cmd.Stderr = e.home, e.environ(), stderrW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-unread-stderr"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Nanosecond}, nil)
	_ = stderrW.Close()
	if err != nil {
		t.Fatalf("initialize with weft's stderr unread: %v", err)
	}
	kids := childrenOf(cmd.Process.Pid)
	awaitListed(ctx, t, cs, "noisy__echo")
	for i := range 5 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "noisy__echo", Arguments: map[string]any{"text": fmt.Sprint(i)}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cs.Wait() }()
	select {
	case <-exited:
	case <-time.After(stopLimit):
		t.Fatalf("weft mcp-server still runs %v after SIGTERM with its stderr unread", stopLimit)
	}
	t.Logf("weft exited %v after SIGTERM", time.Since(start))
	assertNoneLeft(t, marker, kids)
}

// awaitListed lists tools until name appears (upstreams may connect after the
// handshake) or ctx ends.
func awaitListed(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range res.Tools {
			if tool.Name == name {
				return
			}
			names = append(names, tool.Name)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never listed; tools: %s", name, strings.Join(names, ", "))
		case <-time.After(50 * time.Millisecond):
		}
	}
}
