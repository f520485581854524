//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"
)

// scaleBound is a generous limit on bringing the upstreams to active: the
// figure itself is logged, and timing is not what this test asserts.
const scaleBound = 30 * time.Second

// TestServeBringsTenStdioUpstreamsToActive starts `weft serve` with 1 and
// then 10 stdio upstreams (testdata/fakeserver, 5 extra tools each) and logs
// how long weft takes from its start until every upstream is active (weft
// announces its address only after connecting them all). With parallel
// connects, 10 take little longer than 1.
func TestServeBringsTenStdioUpstreamsToActive(t *testing.T) {
	fake := testutil.FakeServerBinary(t)
	weftBinary(t) // built before the clock starts
	for _, n := range []int{1, 10} {
		t.Run(fmt.Sprintf("%d upstreams", n), func(t *testing.T) {
			e := newEnv(t)
			var cfg strings.Builder
			for i := range n {
				fmt.Fprintf(&cfg, "[tools.mcp_servers.s%d]\ntarget = %q\nargs = [\"--name\", \"s%d\", \"--tools\", \"5\"]\n\n", i, fake, i)
			}
			e.writeConfig(t, cfg.String())

			start := time.Now()
			s := e.serve()
			took := time.Since(start)
			if want := fmt.Sprintf("%d of %d MCP servers active", n, n); !strings.Contains(s.stderr.String(), want) {
				t.Fatalf("want %q at startup:\n%s", want, s.stderr.String())
			}
			t.Logf("weft serve: %d stdio upstreams active %v after start", n, took.Round(time.Millisecond))
			if took > scaleBound {
				t.Errorf("%d upstreams took %v to become active, over the %v bound", n, took, scaleBound)
			}
			checkAllActive(t, e, n, 6+5)
		})
	}
}

// checkAllActive asks the running weft for its live status: n servers, each
// active with its tools.
func checkAllActive(t *testing.T, e *env, n, tools int) {
	t.Helper()
	servers := liveServers(t, e)
	if len(servers) != n {
		t.Fatalf("%d servers listed, want %d", len(servers), n)
	}
	for _, s := range servers {
		if s.Status != "active" || s.Tools != tools {
			t.Errorf("server %s: status %s with %d tools, want active with %d", s.Name, s.Status, s.Tools, tools)
		}
	}
}
