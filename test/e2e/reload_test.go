//go:build unix

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestBadReloadChangesNothing: a config saved with a syntax error is
// logged with file, line and reason, and the running servers are left
// alone; a later good save applies, and a server in it that cannot connect
// is reported without holding back the rest.
func TestBadReloadChangesNothing(t *testing.T) {
	fake := testutil.FakeServerBinary(t)
	e := newEnv(t)
	good := fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\nargs = [\"--name\", \"a\"]\n", fake)
	e.writeConfig(t, good)
	s := e.serve()
	changed := make(chan struct{}, 1)
	cs := connect(t, s.url, changed)

	// A save by rename, as editors do, with an unterminated string on line 4.
	broken := good + "\n[tools.mcp_servers.b]\ntarget = \"unterminated\n"
	tmp := e.config + ".swp"
	if err := os.WriteFile(tmp, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.config); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, s, regexp.MustCompile(`config not reloaded.*weft\.toml:\d+`))
	if o := timedCall(cs, "a__echo", map[string]any{"text": "still"}, 10*time.Second); o.failed || !strings.Contains(o.text, "still") {
		t.Fatalf("a after a broken save: %+v", o)
	}

	// A good save: b is added; c cannot start, is reported, and b still applies.
	fixed := good + fmt.Sprintf("\n[tools.mcp_servers.b]\ntarget = %q\nargs = [\"--name\", \"b\"]\n", fake) +
		"\n[tools.mcp_servers.c]\ntarget = \"/nonexistent/weft-test-server\"\n"
	e.writeConfig(t, fixed)
	awaitStatus(t, s, "b", 30*time.Second, "b active", func(st hub.ServerStatus, found bool) bool {
		return found && st.Status == hub.StatusActive
	})
	// A server shows active as soon as it connects, a moment before its
	// tools reach the catalog; wait for them.
	waitFor(t, changed, func() bool { return has(toolNames(t, cs), "b__echo") }, "b__echo listed")
	c := awaitStatus(t, s, "c", 30*time.Second, "c disconnected", func(st hub.ServerStatus, found bool) bool {
		return found && st.Status == hub.StatusDisconnected
	})
	if c.LastError == "" {
		t.Fatal("c is disconnected without a reason")
	}
	if o := timedCall(cs, "c__echo", nil, 10*time.Second); !o.failed || !strings.Contains(o.text, "server disconnected") {
		t.Fatalf("call to c's tool: %+v, want it to say c is disconnected", o)
	}
	for _, tool := range []string{"a__echo", "b__echo"} {
		if o := timedCall(cs, tool, map[string]any{"text": "x"}, 10*time.Second); o.failed {
			t.Fatalf("%s after the good save: %+v", tool, o)
		}
	}
}

// awaitLog waits until weft's stderr matches re.
func awaitLog(t *testing.T, s *served, re *regexp.Regexp) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !re.MatchString(s.stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("weft never logged %s; stderr:\n%s", re, s.stderr.String())
		}
		time.Sleep(25 * time.Millisecond)
	}
}
