package upstream

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/procgroup"
)

// safeEnvNames are the variables every stdio child gets from weft's own
// environment; anything else must be declared in its entry. The proxy, CA
// and npm registry variables are there so npx and uvx work behind a
// corporate proxy or mirror.
var safeEnvNames = []string{"PATH", "HOME", "USER", "LANG", "TMPDIR", "TERM",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "npm_config_registry", "npm_config_cache"}

// killGrace is how long a child's process group has to exit after SIGTERM
// before it is killed.
const killGrace = 2 * time.Second

// process is one stdio child, running in its own process group.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	group  *procgroup.Group
	stdout io.ReadCloser
	// exitedCh is closed when the child has been reaped; done when, after
	// that, its pipes are released too.
	exitedCh chan struct{}
	done     chan struct{}
	err      error // exit status, valid after exitedCh
	stderr   *stderrRelay

	stopOnce sync.Once
}

// ChildEnv builds a stdio child's environment: the safe set from parent plus
// the declared variables, or all of parent when inherit is set.
func ChildEnv(parent []string, declared map[string]string, inherit bool) []string {
	env := make([]string, 0, len(declared)+len(safeEnvNames))
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if inherit || isSafeEnv(name) {
			if _, overridden := declared[name]; !overridden {
				env = append(env, kv)
			}
		}
	}
	for k, v := range declared {
		env = append(env, k+"="+v)
	}
	return env
}

func isSafeEnv(name string) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	for _, s := range safeEnvNames {
		if name == s {
			return true
		}
	}
	return false
}

// startProcess starts target directly (never through a shell) in its own
// process group, with stderr relayed to logger line by line.
//
// A child may start a grandchild that leaves the group (setsid) and keeps the
// child's stdout or stderr open, so EOF on those pipes says nothing about the
// child. The child is therefore reaped on its own: cmd.WaitDelay bounds the
// stderr copy after the child exits, and stdout, read by the session, is cut
// killGrace after the exit if nothing closed it. Neither a stuck Close nor a
// zombie can come from a grandchild's open descriptors.
func startProcess(target string, args []string, env []string, dir string, logger *slog.Logger) (*process, error) {
	cmd := exec.Command(target, args...)
	cmd.Env = env
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", target, err)
	}
	cmd.Stdout = stdoutW
	relay := newStderrRelay(logger)
	cmd.Stderr = relay
	cmd.WaitDelay = killGrace
	group, err := procgroup.Start(cmd)
	_ = stdoutW.Close() // the child has its copy
	if err != nil {
		_ = stdoutR.Close()
		return nil, fmt.Errorf("start %s: %w", target, err)
	}
	out := &eofReader{r: stdoutR, eof: make(chan struct{})}
	p := &process{cmd: cmd, group: group, stdin: stdin, stdout: out, exitedCh: make(chan struct{}), done: make(chan struct{}), stderr: relay}
	go p.reap(relay, out)
	return p, nil
}

// reap waits for the child, then releases what a grandchild may still hold.
func (p *process) reap(relay *stderrRelay, out *eofReader) {
	defer close(p.done)
	p.err = p.cmd.Wait()
	close(p.exitedCh)
	relay.flush()
	timer := time.NewTimer(killGrace)
	defer timer.Stop()
	select {
	case <-out.eof:
	case <-timer.C:
	}
	_ = out.r.Close()
	p.group.Close()
}

// eofReader notes when reading its pipe ended or the session closed it, so
// a stdout nobody will read again is not waited for.
type eofReader struct {
	r    *os.File
	eof  chan struct{}
	once sync.Once
}

func (e *eofReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

func (e *eofReader) Close() error {
	e.once.Do(func() { close(e.eof) })
	return e.r.Close()
}

// stop ends the child's process group: its stdin closes, then SIGTERM, then
// SIGKILL after a grace period. It returns once the child has been reaped and
// its pipes released, or ctx ends; never later than twice killGrace after
// the kill, whatever a grandchild holds.
func (p *process) stop(ctx context.Context) {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		_ = p.group.Terminate()
		timer := time.NewTimer(killGrace)
		defer timer.Stop()
		select {
		case <-p.exitedCh:
		case <-timer.C:
		case <-ctx.Done():
		}
		// Kill the group even when the leader exited: grandchildren may linger.
		_ = p.group.Kill()
	})
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}

// awaitExit reports whether the child is reaped within d: a session that
// ended because the child exited sees its end on stdout just before the
// child is reaped.
func (p *process) awaitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exitedCh:
		return true
	case <-timer.C:
		return false
	}
}

// exited reports whether the child has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.exitedCh:
		return true
	default:
		return false
	}
}

// environ is os.Environ, a variable so tests can pin it.
var environ = os.Environ

// exitStatus describes how the child ended, for an error: "exit status 0"
// rather than "<nil>" for a child that exited cleanly.
func (p *process) exitStatus() string {
	if p.err == nil {
		return "exit status 0"
	}
	return p.err.Error()
}

// stderrSuffix quotes the last lines the child wrote to stderr, for the end
// of a connect error; empty if it wrote none.
func (p *process) stderrSuffix() string {
	lines := p.stderr.lastLines()
	if len(lines) == 0 {
		return ""
	}
	return "; its stderr ended with: " + strings.Join(lines, " | ")
}
