//go:build linux

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

	"github.com/weft-dev/weft/internal/llm/llmtest"
	"golang.org/x/sys/unix"
)

// At a terminal: without --yes, plan create shows the drafted plan and
// asks `Execute? [y/n/edit]`; y runs it, n keeps it saved and unrun.
func TestPlanCreateAsksAtTerminal(t *testing.T) {
	cases := []struct {
		answer, want, never, lastRun string
	}{
		{"y", "completed: 2/2 steps done", "Not run.", "Last run: completed, 2 done"},
		{"n", "Not run. `weft plan run ", "completed: 2/2", "Last run: never run"},
	}
	for _, c := range cases {
		t.Run(c.answer, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.OpenAI, llmtest.Reply{Text: echoPlan})
			e := newEnv(t)
			e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
			out, errOut := runAtTerminal(t, e, c.answer+"\n", "plan", "create", "say hi twice")
			m := savedPlanID.FindStringSubmatch(out)
			if m == nil || !strings.Contains(out, "Plan: Echo twice (2 steps)") || !strings.Contains(out, "Execute? [y/n/edit] ") ||
				!strings.Contains(out, c.want) || strings.Contains(out, c.never) {
				t.Fatalf("answer %s: want a saved plan, the question and %q (never %q)\nstdout:\n%s\nstderr:\n%s", c.answer, c.want, c.never, out, errOut)
			}
			if show, _, code := e.run("plan", "show", m[1]); code != 0 || !strings.Contains(show, "1. Say hi") || !strings.Contains(show, c.lastRun) {
				t.Errorf("plan show %s after %s: exit %d\n%s", m[1], c.answer, code, show)
			}
		})
	}
}

// runAtTerminal runs weft with a pseudo-terminal as stdin, on which input
// is already typed, and returns stdout and stderr; the command must exit 0.
func runAtTerminal(t *testing.T, e *env, input string, args ...string) (string, string) {
	t.Helper()
	ctl, tty := openPTY(t)
	if _, err := ctl.WriteString(input); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weftBinary(t), append([]string{"--config", e.config}, args...)...)
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("weft %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), stderr.String()
}

// openPTY opens a pseudo-terminal: ctl is the side the test types into,
// tty the terminal weft reads. Both close when the test ends.
func openPTY(t *testing.T) (ctl, tty *os.File) {
	t.Helper()
	ctl, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ctl.Close() })
	if err := unix.IoctlSetPointerInt(int(ctl.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ctl.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ctl, tty
}
