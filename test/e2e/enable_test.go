//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/testutil"
)

// TestEnabledFalseMeansTheSameEverywhere: a server with enabled = false is
// listed as disabled by mcp list (whose SOURCE column names weft.toml and
// whose TOOLS column shows exposed/total), mcp get does not connect it unless asked
// with --connect, and mcp enable/disable flip the entry in weft.toml.
func TestEnabledFalseMeansTheSameEverywhere(t *testing.T) {
	e := newEnv(t)
	missing := filepath.Join(e.home, "no", "such-server")
	toml := "[tools.mcp_servers.on]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"on\"]\nallowed_tools = [\"echo\"]\n\n" +
		"[tools.mcp_servers.off]\ntarget = \"" + missing + "\"\nenabled = false\n"
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.run("mcp", "list")
	if code != 0 || !lineHas(out, "off", "disabled") || !lineHas(out, "on", "active") || !lineHas(out, "on", "weft.toml") {
		t.Fatalf("mcp list: %d\n%s%s", code, out, errOut)
	}
	if m := regexp.MustCompile(`(?m)^on\s.*\s1/(\d+)\s`).FindStringSubmatch(out); m == nil || m[1] == "1" {
		t.Errorf("mcp list TOOLS does not show 1 exposed of the server's tools for allowed_tools = [\"echo\"]:\n%s", out)
	}
	out, _, _ = e.run("mcp", "get", "off")
	if !strings.Contains(out, "disabled") || strings.Contains(out, "no such file") {
		t.Errorf("mcp get off connected a disabled server or did not say disabled:\n%s", out)
	}
	out, _, _ = e.run("mcp", "get", "off", "--connect")
	if !strings.Contains(out, "no such file") {
		t.Errorf("mcp get off --connect did not try the server:\n%s", out)
	}
	if out, errOut, code := e.run("mcp", "enable", "off"); code != 0 || !strings.Contains(out, "Enabled MCP server 'off'") {
		t.Fatalf("mcp enable off: %d %s%s", code, out, errOut)
	}
	if out, errOut, code := e.run("mcp", "disable", "on"); code != 0 || !strings.Contains(out, "Disabled MCP server 'on'") {
		t.Fatalf("mcp disable on: %d %s%s", code, out, errOut)
	}
	data, _ := os.ReadFile(e.config)
	if !strings.Contains(string(data), "[tools.mcp_servers.on]\nenabled = false") || !strings.Contains(string(data), "enabled = true") {
		t.Errorf("weft.toml after enable/disable:\n%s", data)
	}
	if _, errOut, code := e.run("mcp", "enable", "of"); code == 0 || !strings.Contains(errOut, `did you mean "off"?`) {
		t.Errorf("mcp enable of: %d %s", code, errOut)
	}
}

// lineHas reports whether a line of out starts with name and contains word.
func lineHas(out, name, word string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, name+" ") && strings.Contains(l, word) {
			return true
		}
	}
	return false
}
