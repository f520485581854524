//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// Many `weft mcp add` at once on one weft.toml, each of a different name,
// all land: the file is edited under a cross-process lock. With a weft
// running, the adds go through its admin API and it runs them all.
func TestConcurrentMcpAddAllLand(t *testing.T) {
	for _, c := range []struct {
		n       int
		running bool
	}{{10, false}, {20, false}, {20, true}} {
		t.Run(fmt.Sprintf("%d running=%v", c.n, c.running), func(t *testing.T) {
			e := newEnv(t)
			fake := testutil.FakeServerBinary(t)
			var s *served
			if c.running {
				s = e.serve()
			}
			var wg sync.WaitGroup
			for i := range c.n {
				name := fmt.Sprintf("s%02d", i)
				wg.Go(func() {
					out, errOut, code := e.run("mcp", "add", name, fake, "--", "--name", name)
					if code != 0 || !strings.Contains(out, "Added MCP server '"+name+"'") {
						t.Errorf("mcp add %s: exit %d\n%s%s", name, code, out, errOut)
					}
				})
			}
			wg.Wait()
			cfg, err := config.Load(e.config)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Servers) != c.n {
				b, _ := os.ReadFile(e.config)
				t.Fatalf("%d servers in weft.toml after %d concurrent adds, want all:\n%s", len(cfg.Servers), c.n, b)
			}
			if s == nil {
				return
			}
			out, _, _ := e.run("mcp", "list", "--json")
			var l struct {
				Source  string                    `json:"source"`
				Servers []struct{ Status string } `json:"servers"`
			}
			if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Servers) != c.n {
				t.Fatalf("the running weft lists %d servers, want %d (%v): %s", len(l.Servers), c.n, err, out)
			}
			if !strings.Contains(s.stderr.String(), "admin API added a server") {
				t.Errorf("the adds did not go through the running weft's admin API:\n%s", s.stderr.String())
			}
		})
	}
}

// Two `weft serve` on one config: each has its own state entry, so the
// second stopping leaves the first findable; `weft mcp list` says which
// weft it asked and names the others.
func TestManyWeftsOnOneConfig(t *testing.T) {
	e := newEnv(t)
	first := e.serve()
	second := e.serve()
	out, _, code := e.run("mcp", "list", "--json")
	var l struct {
		Source    string `json:"source"`
		Instances []struct {
			PID int `json:"pid"`
		} `json:"instances"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 {
		t.Fatalf("mcp list: %v: %s", err, out)
	}
	if len(l.Instances) != 2 || !strings.Contains(l.Source, "also running on this config") {
		t.Fatalf("mcp list with two wefts running: %+v", l)
	}
	if code := second.stop(t); code != 0 {
		t.Fatalf("second weft exited %d", code)
	}
	out, _, _ = e.run("mcp", "list", "--json")
	l.Instances = nil
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pid %d", first.cmd.Process.Pid)
	if !strings.HasPrefix(l.Source, "live weft at") || !strings.Contains(l.Source, want) || len(l.Instances) != 1 {
		t.Fatalf("after the second weft stopped, mcp list says %q %+v; want the first one (%s)", l.Source, l.Instances, want)
	}
}
