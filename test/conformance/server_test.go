//go:build unix

package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestServerConformance runs every server scenario of the suite (--suite all) against
// `weft serve`, whose only upstream is testdata/conformance/server over
// stdio with an empty prefix, so that the suite's fixed names reach it
// through weft's forwarding unchanged.
func TestServerConformance(t *testing.T) {
	s := conformanceSuite(t)
	weft := binary(t, "cmd/weft")
	fixture := binary(t, "testdata/conformance/server")

	home := t.TempDir()
	cfg := filepath.Join(home, "weft.toml")
	toml := fmt.Sprintf("[tools.mcp_servers.conf]\ntarget = %q\nprefix = \"\"\n", fixture)
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWeft(t, weft, home, cfg)
	defer func() {
		w.stop(t)
		noneLeft(t, fixture)
	}()

	results := filepath.Join(t.TempDir(), "results")
	baseline, _ := filepath.Abs(baselineFile)
	code, output := s.run(t, t.TempDir(), "server", "--url", w.url, "--suite", "all",
		"-o", results, "--expected-failures", baseline)
	judge(t, "server", readResults(t, results, "server-"), ranScenarios(output), output)
	if code != 0 && !t.Failed() {
		t.Errorf("conformance server exited %d although every failure is expected:\n%s", code, output)
	}
}

// weftServe is a running `weft serve`.
type weftServe struct {
	cmd    *exec.Cmd
	url    string
	exited chan struct{}
	mu     sync.Mutex
	log    strings.Builder
}

func (w *weftServe) stderr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.String()
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// startWeft starts `weft serve` on a free loopback port, in its own process
// group and with its own HOME, and waits until it announces its address.
func startWeft(t *testing.T, weft, home, cfg string) *weftServe {
	t.Helper()
	cmd := exec.Command(weft, "--config", cfg, "serve", "--listen", "127.0.0.1:0")
	cmd.Env = append(withoutVars(os.Environ(), "HOME", "WEFT_CONFIG"), "HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start weft: %v", err)
	}
	w := &weftServe{cmd: cmd, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		var url string
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			w.mu.Lock()
			w.log.WriteString(sc.Text() + "\n")
			w.mu.Unlock()
			// Upstreams connect after weft listens: the address counts once
			// the line saying how many are active follows it.
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				url = m[1]
			}
			if strings.Contains(sc.Text(), "MCP servers active") {
				select {
				case found <- url:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		_ = cmd.Wait()
		_ = pw.Close()
		close(w.exited)
	}()
	select {
	case w.url = <-found:
	case <-w.exited:
		t.Fatalf("weft serve exited before listening:\n%s", w.stderr())
	case <-time.After(60 * time.Second):
		w.stop(t)
		t.Fatalf("weft serve did not announce its address within 60 s:\n%s", w.stderr())
	}
	if !strings.Contains(w.stderr(), "1 of 1 MCP servers active") {
		w.stop(t)
		t.Fatalf("the conformance fixture did not connect:\n%s", w.stderr())
	}
	return w
}

// stop ends weft with SIGTERM, as a user would, and its process group with
// SIGKILL if it does not exit in time.
func (w *weftServe) stop(t *testing.T) {
	t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(30 * time.Second):
		t.Errorf("weft serve did not exit within 30 s of SIGTERM")
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.exited
	}
	if code := w.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("weft serve exited %d after SIGTERM:\n%s", code, w.stderr())
	}
}

func withoutVars(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
