//go:build unix

package conformance

import (
	"bufio"
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
)

// referenceServer is go-sdk's own fixture for the suite's server
// scenarios, built exactly as the SDK ships it.
const referenceServer = "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"

// TestServerConformance runs every server scenario of the suite (--suite all)
// against `weft serve` fronting go-sdk's reference conformance server as
// shipped, with default settings, over stdio and over Streamable HTTP (where
// its default is stateless). The upstream has an empty prefix, so that the
// suite's fixed names reach it through weft's forwarding unchanged. Each
// transport has its own section of the baseline: server (stdio) and
// server-http, which lists what the reference server fails directly too.
func TestServerConformance(t *testing.T) {
	s := conformanceSuite(t)
	weft := binary(t, "cmd/weft")
	fixture := binary(t, referenceServer)
	for _, mode := range []string{"stdio", "http"} {
		t.Run(mode, func(t *testing.T) {
			entry := fmt.Sprintf("target = %q\nprefix = \"\"\n", fixture)
			section := "server"
			if mode == "http" {
				entry = fmt.Sprintf("target = %q\ntype = \"http\"\nprefix = \"\"\n", startReference(t, fixture))
				section = "server-http"
			}
			home := t.TempDir()
			cfg := filepath.Join(home, "weft.toml")
			if err := os.WriteFile(cfg, []byte("[tools.mcp_servers.conf]\n"+entry), 0o600); err != nil {
				t.Fatal(err)
			}
			w := startWeft(t, weft, home, cfg)
			defer func() {
				w.stop(t)
				if mode == "stdio" {
					noneLeft(t, fixture)
				}
			}()
			results := filepath.Join(t.TempDir(), "results")
			baseline := cliBaseline(t, section)
			code, output := s.run(t, t.TempDir(), "server", "--url", w.url, "--suite", "all",
				"-o", results, "--expected-failures", baseline)
			judge(t, section, readResults(t, results, "server-"), ranScenarios(output), output)
			if code != 0 && !t.Failed() {
				t.Errorf("conformance server exited %d although every failure is expected:\n%s", code, output)
			}
		})
	}
}

// startReference runs the reference server over Streamable HTTP with its
// default settings on a free loopback port, until the test ends, and
// returns its endpoint.
func startReference(t *testing.T, fixture string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cmd := exec.Command(fixture, "-http", addr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the reference server: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference server did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond) // polling a port: nothing to await
	}
	return "http://" + addr
}

// cliBaseline writes the baseline section for one run in the CLI's format
// (a server list) and returns its path.
func cliBaseline(t *testing.T, section string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("server:\n")
	for name := range loadBaseline(t, section) {
		b.WriteString("  - " + name + "\n")
	}
	p := filepath.Join(t.TempDir(), "expected-failures.yml")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
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
	if log := w.stderr(); !strings.Contains(log, "1 of 1 MCP servers active") && !strings.Contains(log, "2 of 2 MCP servers active") {
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
