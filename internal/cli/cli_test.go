package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/testutil"
)

// cliCase is one in-process run of weft: its arguments (after --config),
// the exit code and what stdout and stderr must contain.
type cliCase struct {
	name       string
	config     string // weft.toml's content; "" for none
	args       []string
	code       int
	stdout     []string
	stderr     []string
	configHas  []string // substrings weft.toml must have afterwards
	configLack []string
}

func TestCLI(t *testing.T) {
	fake := testutil.FakeServerBinary(t)
	one := "[tools.mcp_servers.one]\ntarget = \"" + fake + "\"\nargs = [\"--name\", \"one\"]\n"
	cases := []cliCase{
		{name: "unknown command", args: []string{"frobnicate"}, code: 1, stderr: []string{`weft: unknown command "frobnicate"`}},
		{name: "bad log level", args: []string{"--log-level", "loud", "mcp", "list"}, code: 1, stderr: []string{`--log-level "loud": use debug, info, warn or error`}},
		{name: "add needs a target", args: []string{"mcp", "add", "x"}, code: 1, stderr: []string{"requires at least 2 arg(s)"}},
		{name: "add bad env", args: []string{"mcp", "add", "x", "y", "--env", "NOEQUALS"}, code: 1, stderr: []string{`--env "NOEQUALS": expected KEY=VALUE`}},
		{name: "add bad header", args: []string{"mcp", "add", "x", "https://example.com/mcp", "--header", "nocolon"}, code: 1, stderr: []string{`--header "nocolon": expected KEY:VALUE`}},
		{name: "add bad name", args: []string{"mcp", "add", "bad name", "echo", "--no-verify"}, code: 1, stderr: []string{"bad name"}},
		{name: "add unreachable", args: []string{"mcp", "add", "broken", "/nonexistent/server"}, code: 1,
			stderr: []string{"could not add broken", "nothing was written", "--no-verify"}, configLack: []string{"broken"}},
		{name: "add unverified", args: []string{"mcp", "add", "later", "/nonexistent/server", "--no-verify"},
			stdout: []string{"Added MCP server 'later' to ", "(not verified)"}, configHas: []string{"[tools.mcp_servers.later]"}},
		{name: "add verified", args: []string{"mcp", "add", "two", fake, "--", "--name", "two"},
			stdout: []string{"Added MCP server 'two' with 6 tools to "}, configHas: []string{"[tools.mcp_servers.two]", "'--name'"}},
		{name: "add existing", config: one, args: []string{"mcp", "add", "one", "echo"}, code: 1, stderr: []string{`a server named "one" already exists`}},
		{name: "remove", config: "# keep me\n[gateway]\nseparator = \"__\"\n\n" + one, args: []string{"mcp", "remove", "one"},
			stdout: []string{"Removed MCP server 'one' from "}, configHas: []string{"# keep me"}, configLack: []string{"mcp_servers.one"}},
		{name: "remove unknown", args: []string{"mcp", "remove", "nope"}, code: 1, stderr: []string{`server "nope" not found in`}},
		{name: "list empty", args: []string{"mcp", "list"}, stdout: []string{"No MCP servers configured. Add one: weft mcp add NAME TARGET"}},
		{name: "list health check", config: one, args: []string{"mcp", "list"},
			stdout: []string{"NAME", "TRANSPORT", "STATUS", "one", "stdio", "active", "tools listed", "(health check of "}},
		{name: "get unknown", args: []string{"mcp", "get", "nope"}, code: 1, stderr: []string{`no server named "nope"`}},
		{name: "get", config: one, args: []string{"mcp", "get", "one"}, stdout: []string{"one (stdio ", "tools (6):", "one__echo"}},
		{name: "import missing file", args: []string{"mcp", "import", "/nonexistent/.mcp.json"}, code: 1, stderr: []string{"/nonexistent/.mcp.json"}},
		{name: "broken config", config: "[gateway\n", args: []string{"mcp", "list"}, code: 1, stderr: []string{"weft.toml"}},
		{name: "version", args: []string{"--version"}, stdout: []string{"weft version " + Version}},
		{name: "run needs a task", args: []string{"run"}, code: 1, stderr: []string{"accepts 1 arg(s)"}},
		{name: "secret for a shared server", config: one, args: []string{"mcp", "secret", "set", "one", "TOKEN", "--user", "alice"}, code: 1,
			stderr: []string{"one is not a per-user stdio server; secrets apply to stdio servers with per_user = true"}},
		{name: "secret needs a user", config: one, args: []string{"mcp", "secret", "list", "one"}, code: 1, stderr: []string{`"user" not set`}},
		{name: "login --user on a shared server", config: "[tools.mcp_servers.r]\ntarget = \"https://mcp.example.com/mcp\"\n",
			args: []string{"mcp", "login", "r", "--user", "alice", "--no-browser"}, code: 1, stderr: []string{"r keeps one login for everybody; --user applies to servers with per_user = true"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t) })
	}
}

func (c cliCase) check(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("WEFT_CONFIG", "")
	path := filepath.Join(dir, "weft.toml")
	if c.config != "" {
		if err := os.WriteFile(path, []byte(c.config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr strings.Builder
	code := run(context.Background(), append([]string{"--config", path, "--log-level", "error"}, c.args...), &stdout, &stderr)
	if code != c.code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout.String(), stderr.String())
	}
	for _, want := range c.stdout {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, want := range c.stderr {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if c.code != 0 && strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
		t.Errorf("an error is one line; stderr:\n%s", stderr.String())
	}
	b, _ := os.ReadFile(path)
	for _, want := range c.configHas {
		if !strings.Contains(string(b), want) {
			t.Errorf("weft.toml lacks %q:\n%s", want, b)
		}
	}
	for _, bad := range c.configLack {
		if strings.Contains(string(b), bad) {
			t.Errorf("weft.toml has %q:\n%s", bad, b)
		}
	}
}

// TestListJSONShape: `mcp list --json` is the listing with its source,
// servers and tool lists, never null.
func TestListJSONShape(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"--config", filepath.Join(dir, "weft.toml"), "mcp", "list", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout.String())
	}
	for _, key := range []string{"source", "servers", "listed_tools", "search_only_tools"} {
		if _, ok := got[key]; !ok {
			t.Errorf("mcp list --json lacks %q: %s", key, stdout.String())
		}
	}
	if _, ok := got["listed_tools"].([]any); !ok {
		t.Errorf("listed_tools is not a list: %s", stdout.String())
	}
}
