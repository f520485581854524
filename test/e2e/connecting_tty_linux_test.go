//go:build linux

package e2e

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"
)

// `weft mcp add` shows "connecting to NAME… Ns" on a terminal while it
// connects, erased in place once done; stderr that is not a terminal gets
// no such line.
func TestMcpAddShowsConnectingOnlyAtATerminal(t *testing.T) {
	e := newEnv(t)
	fake := testutil.FakeServerBinary(t)
	ctl, tty := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weftBinary(t), "--config", e.config, "mcp", "add", "one", fake, "--", "--name", "one")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Run(); err != nil {
		t.Fatalf("weft mcp add: %v\n%s", err, stdout.String())
	}
	tty.Close() // reading ctl ends once every copy of the terminal is closed
	var seen strings.Builder
	if _, err := io.Copy(&seen, ctl); err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	if !strings.Contains(seen.String(), "connecting to one… 0s") || !strings.HasSuffix(seen.String(), "\r\033[K") {
		t.Errorf("terminal got %q; want the connecting line, then erased", seen.String())
	}
	if !strings.Contains(stdout.String(), "Added MCP server 'one'") {
		t.Errorf("stdout %q lacks the added line", stdout.String())
	}
	_, errOut, code := e.run("mcp", "add", "two", fake, "--", "--name", "two")
	if code != 0 || strings.Contains(errOut, "connecting to") {
		t.Errorf("mcp add with stderr not a terminal: exit %d, stderr %q", code, errOut)
	}
}
