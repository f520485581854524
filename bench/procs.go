//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long a process has to exit after SIGTERM before its
// process group is killed.
const stopGrace = 10 * time.Second

// proc is one child the bench started, in its own process group.
type proc struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once the child has been reaped
	url    chan string   // the first "listening on URL" line, if any
}

var listenRe = regexp.MustCompile(`listening on (http://\S+)`)

// workspace is the bench's private directory: built binaries, configs and
// logs. Every process whose executable lies in it was started by the bench.
type workspace struct {
	dir         string
	weft        string
	benchserver string
	weftEnv     []string // extra variables for weft only (e.g. GOGC=400)
}

// buildWorkspace creates the directory and builds weft and the upstream once,
// so that what is measured is the product binary.
func buildWorkspace(ctx context.Context) (*workspace, error) {
	dir, err := os.MkdirTemp("", "weft-bench-")
	if err != nil {
		return nil, fmt.Errorf("create the bench directory: %w", err)
	}
	w := &workspace{dir: dir, weft: filepath.Join(dir, "weft"), benchserver: filepath.Join(dir, "benchserver")}
	for bin, pkg := range map[string]string{w.weft: "github.com/weft-dev/weft/cmd/weft", w.benchserver: "github.com/weft-dev/weft/testdata/benchserver"} {
		out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("go build %s: %w: %s (run the bench from inside the weft module)", pkg, err, strings.TrimSpace(string(out)))
		}
	}
	return w, nil
}

// path names a file in the workspace.
func (w *workspace) path(name string) string { return filepath.Join(w.dir, name) }

// env is the environment of every child: HOME is the workspace, so weft's
// run-state files stay out of the user's home.
func (w *workspace) env() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "WEFT_CONFIG=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+w.dir)
}

// command prepares bin with the workspace as working directory (so no
// stray .mcp.json is read), in a new process group that dies with the bench.
func (w *workspace) command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	if bin == w.weft {
		cmd.Env = append(cmd.Env, w.weftEnv...)
	}
	cmd.SysProcAttr = groupAttr()
	return cmd
}

// logFile opens a log in the workspace for a child's output.
func (w *workspace) logFile(name string) (*os.File, error) {
	return os.OpenFile(w.path(name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}

// start runs bin in the background; its stdout and stderr go to a log
// file, and the first "listening on URL" line is reported on p.url.
func (w *workspace) start(name, bin string, args ...string) (*proc, error) {
	cmd := w.command(bin, args...)
	logf, err := w.logFile(name)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, exited: make(chan struct{}), url: make(chan string, 1)}
	go scanListen(pr, logf, p.url)
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(p.exited)
	}()
	return p, nil
}

// scanListen copies r to log line by line and sends the first listening
// URL; it ends when r does (the child exited).
func scanListen(r io.Reader, log *os.File, found chan<- string) {
	defer log.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(log, line)
		if m := listenRe.FindStringSubmatch(line); m != nil {
			select {
			case found <- m[1]:
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// waitURL waits for the child's listening line.
func (p *proc) waitURL(ctx context.Context, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	select {
	case u := <-p.url:
		return u, nil
	case <-p.exited:
		return "", fmt.Errorf("%s exited before listening; see its log in the bench directory", p.name)
	case <-ctx.Done():
		return "", fmt.Errorf("%s did not listen within %s: %w", p.name, timeout, ctx.Err())
	}
}

// stop asks the child to exit (SIGTERM: weft drains and ends its own
// children), then kills its whole group if it is still there after the grace.
func (p *proc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		killGroup(p.cmd.Process)
		<-p.exited
	}
}

// pid is the child's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// cleanup kills whatever of the bench's own processes is left (there should
// be none) and returns how many it had to kill. It removes the workspace
// unless keepLogs is set, when a scenario failed and its logs tell why.
func (w *workspace) cleanup(keepLogs bool) int {
	left := w.orphans()
	for _, pid := range left {
		killPID(pid)
	}
	if keepLogs {
		fmt.Fprintf(os.Stderr, "bench: logs of weft and the upstreams kept in %s (remove it when done)\n", w.dir)
		return len(left)
	}
	if err := os.RemoveAll(w.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "bench: cannot remove %s: %v\n", w.dir, err)
	}
	return len(left)
}
