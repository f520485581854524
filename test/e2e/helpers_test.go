//go:build unix

// The end-to-end suite drives weft and its upstreams as processes, with Unix
// process groups and signals and, on Linux, /proc to find leftovers; it runs
// on Linux and compiles on macOS. Windows builds are covered by the
// cross-compile step of CI and internal/procgroup's own tests.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"
)

// weftBinary builds cmd/weft once per test run.
func weftBinary(t *testing.T) string {
	t.Helper()
	return testutil.GoBinary(t, "github.com/weft-dev/weft/cmd/weft", "weft")
}

// env is an isolated environment for weft: its own HOME and config.
type env struct {
	t      *testing.T
	home   string
	config string
	listen string // address for serve (default 127.0.0.1:0)
	// noSettle makes serve return once weft listens, without waiting for
	// the upstreams' first connections (the "N of M MCP servers active" line).
	noSettle bool
	dir      string // working directory of weft (default: the test's)
}

func newEnv(t *testing.T) *env {
	home := t.TempDir()
	return &env{t: t, home: home, config: filepath.Join(home, "weft.toml")}
}

func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "WEFT_CONFIG=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+e.home)
}

// run runs a weft command to completion and returns stdout, stderr and the
// exit code.
func (e *env) run(args ...string) (string, string, int) {
	e.t.Helper()
	return e.runInput("", args...)
}

// runInput is run with stdin.
func (e *env) runInput(stdin string, args ...string) (string, string, int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, weftBinary(e.t), append([]string{"--config", e.config}, args...)...)
	cmd.Env = e.environ()
	cmd.Dir = e.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("weft %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// served is a running `weft serve`.
type served struct {
	cmd    *exec.Cmd
	exited chan struct{}
	code   int
	url    string
	stderr *syncBuffer
}

var (
	listenRe  = regexp.MustCompile(`listening on (http://\S+/mcp)`)
	settledRe = regexp.MustCompile(`MCP servers active|weft mcp add everything`)
)

// serve starts `weft serve` on a free port and waits until it listens.
func (e *env) serve() *served {
	e.t.Helper()
	return e.serveArgs()
}

// serveArgs is serve with extra global flags (such as --log-level debug).
func (e *env) serveArgs(flags ...string) *served {
	e.t.Helper()
	listen := "127.0.0.1:0"
	if e.listen != "" {
		listen = e.listen
	}
	args := append(append([]string{"--config", e.config}, flags...), "serve", "--listen", listen)
	cmd := exec.Command(weftBinary(e.t), args...)
	cmd.Env = e.environ()
	cmd.Dir = e.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	buf := &syncBuffer{}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	s := &served{cmd: cmd, stderr: buf, exited: make(chan struct{})}
	e.t.Cleanup(func() { s.stop(e.t) })
	found, settled := make(chan string, 1), make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			buf.add(line + "\n")
			if m := listenRe.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
			if settledRe.MatchString(line) {
				select {
				case settled <- struct{}{}:
				default:
				}
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		s.code = cmd.ProcessState.ExitCode()
		pw.Close()
		close(s.exited)
	}()
	select {
	case s.url = <-found:
	case <-time.After(60 * time.Second):
		e.t.Fatalf("weft serve did not start; stderr:\n%s", buf.String())
	}
	if e.noSettle {
		return s
	}
	// Upstreams connect in the background; most tests want them all up.
	select {
	case <-settled:
	case <-time.After(60 * time.Second):
		e.t.Fatalf("weft serve did not report its upstreams; stderr:\n%s", buf.String())
	}
	return s
}

// stop sends SIGTERM and waits; weft must exit 0 and leave no process in
// its group.
func (s *served) stop(t *testing.T) int {
	select {
	case <-s.exited:
		return s.code
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		t.Errorf("weft serve did not exit within 30 s of SIGTERM")
		<-s.exited
	}
	return s.code
}

type syncBuffer struct {
	mu     sync.Mutex
	b      strings.Builder
	notify chan struct{} // signalled after each add, for waiting on a line
}

func (b *syncBuffer) add(s string) {
	b.mu.Lock()
	b.b.WriteString(s)
	if b.notify == nil {
		b.notify = make(chan struct{}, 1)
	}
	n := b.notify
	b.mu.Unlock()
	select {
	case n <- struct{}{}:
	default:
	}
}

// added returns the channel signalled when text is added.
func (b *syncBuffer) added() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.notify == nil {
		b.notify = make(chan struct{}, 1)
	}
	return b.notify
}
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// freePort returns a loopback port nobody listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// childrenOf lists live processes whose parent is pid (from /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscanf(e.Name(), "%d", &p); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The field after the parenthesised command is state, then ppid.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		var state string
		var ppid int
		if _, err := fmt.Sscanf(s[i+2:], "%s %d", &state, &ppid); err == nil && ppid == pid && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

// npmBin returns a binary installed by testdata/npm (testutil.NPMBin).
func npmBin(t *testing.T, name string) string {
	t.Helper()
	return testutil.NPMBin(t, name)
}

func dialTCP(port int) (net.Conn, error) {
	return net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
}
