package cli

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestMcpAddRemoveThroughRunningWeft: with a weft running on the config,
// `mcp add` and `mcp remove` are changes of that weft (its admin API): the
// server runs and is recorded as soon as the command returns, and `mcp
// list` names the weft it asked.
func TestMcpAddRemoveThroughRunningWeft(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	path := filepath.Join(dir, "weft.toml")
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(cfg, daemon.Options{NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(context.Background())
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Gateway().HandlerWith(gateway.HTTPOptions{Listen: "127.0.0.1:0"}))
	defer srv.Close()
	unannounce, err := daemon.Announce(path, strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer unannounce()

	fake := testutil.FakeServerBinary(t)
	out := runOK(t, path, "mcp", "add", "one", fake, "--", "--name", "one")
	if !strings.Contains(out, "Added MCP server 'one' with 6 tools") {
		t.Fatalf("mcp add: %s", out)
	}
	if names := d.Hub().Names(); len(names) != 1 || names[0] != "one" {
		t.Fatalf("the running weft runs %v right after mcp add, want [one]", names)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "[tools.mcp_servers.one]") {
		t.Fatalf("not recorded:\n%s", b)
	}
	if out := runOK(t, path, "mcp", "list"); !strings.Contains(out, "live weft at "+strings.TrimPrefix(srv.URL, "http://")) {
		t.Fatalf("mcp list does not say which weft it asked:\n%s", out)
	}
	runOK(t, path, "mcp", "remove", "one")
	if names := d.Hub().Names(); len(names) != 0 {
		t.Fatalf("the running weft still runs %v after mcp remove", names)
	}
}

func runOK(t *testing.T, path string, args ...string) string {
	t.Helper()
	var stdout, stderr strings.Builder
	if code := run(context.Background(), append([]string{"--config", path, "--log-level", "error"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("weft %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.String()
}
