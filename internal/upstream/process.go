package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// safeEnvNames are the variables every stdio child gets from weft's own
// environment; anything else must be declared in its entry.
var safeEnvNames = []string{"PATH", "HOME", "USER", "LANG", "TMPDIR", "TERM"}

// killGrace is how long a child's process group has to exit after SIGTERM
// before it is killed.
const killGrace = 2 * time.Second

// maxStderrLine bounds one logged line of a child's stderr.
const maxStderrLine = 4096

// process is one stdio child, running in its own process group.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	done   chan struct{} // closed when the child has been reaped
	err    error         // exit status, valid after done

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

// startProcess starts target directly (never through a shell) in a new
// process group, with stderr copied line by line to logger.
func startProcess(target string, args []string, env []string, dir string, logger *slog.Logger) (*process, error) {
	cmd := exec.Command(target, args...)
	cmd.Env = env
	cmd.Dir = dir
	// Setpgid lets weft end the child's whole tree (npx/uvx wrappers fork);
	// Pdeathsig ends the direct child even if weft is killed with SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", target, err)
	}
	p := &process{cmd: cmd, stdin: stdin, stdout: stdout, done: make(chan struct{})}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		logLines(stderr, logger)
	}()
	go func() {
		<-stderrDone
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// logLines copies r to logger, one record per line, each bounded in length.
func logLines(r io.Reader, logger *slog.Logger) {
	br := bufio.NewReaderSize(r, maxStderrLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			logger.Info("stderr", "line", strings.TrimRight(string(line), "\r\n"))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return
		}
	}
}

// stop ends the child's process group: SIGTERM, then SIGKILL after a grace
// period. It returns once the child has been reaped or ctx ends.
func (p *process) stop(ctx context.Context) {
	p.stopOnce.Do(func() {
		_ = p.stdin.Close()
		pgid := p.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		timer := time.NewTimer(killGrace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
		case <-ctx.Done():
		}
		// Kill the group even when the leader exited: grandchildren may linger.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	})
	select {
	case <-p.done:
	case <-ctx.Done():
	}
}

// exited reports whether the child has been reaped.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// environ is os.Environ, a variable so tests can pin it.
var environ = os.Environ
