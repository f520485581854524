package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadSkipsEntriesThatLaunchThisWeft: an entry that runs this very
// executable as `mcp-server` on the same config, or that points at this
// weft's own listener, is dropped with one warning naming the file and the
// entry; a weft on another config and other servers stay.
func TestLoadSkipsEntriesThatLaunchThisWeft(t *testing.T) {
	dir := isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "weft")
	if err := os.Symlink(exe, bin); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfgPath := writeFile(t, filepath.Join(dir, "weft.toml"), `[gateway]
listen = "127.0.0.1:7799"

[tools.mcp_servers.me-too]
target = "`+bin+`"
args = ["--config", "`+filepath.Join(dir, "weft.toml")+`", "mcp-server"]

[tools.mcp_servers.loop]
target = "http://localhost:7799/mcp"

[tools.mcp_servers.elsewhere]
target = "http://localhost:7800/mcp"
`)
	mcpJSON := writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
		"weft": {"command": "weft", "args": ["mcp-server"]},
		"nested": {"command": "weft", "args": ["mcp-server", "--config", "other.toml"]},
		"serve": {"command": "weft", "args": ["mcp", "list"]}
	}}`)
	cfg, err := Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Names(), []string{"elsewhere", "nested", "serve"}; !slices.Equal(got, want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
	skipped := slices.DeleteFunc(slices.Clone(cfg.Warnings), func(w string) bool { return !strings.Contains(w, "skipped it") })
	if len(skipped) != 3 {
		t.Fatalf("want one warning per skipped entry, got %q", cfg.Warnings)
	}
	for _, want := range []string{mcpJSON + `: server "weft" starts this weft`, cfgPath + `: server "me-too" starts this weft`,
		cfgPath + `: server "loop" points at this weft's own listener`} {
		if !slices.ContainsFunc(cfg.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("no warning starting %q in %q", want, cfg.Warnings)
		}
	}
}

// TestLoadReadMCPJSONFalse: [gateway] read_mcp_json = false stops weft
// merging .mcp.json files.
func TestLoadReadMCPJSONFalse(t *testing.T) {
	dir := isolate(t)
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"a": {"command": "echo"}}}`)
	for _, c := range []struct {
		toml string
		want []string
	}{
		{"", []string{"a"}},
		{"[gateway]\nread_mcp_json = true\n", []string{"a"}},
		{"[gateway]\nread_mcp_json = false\n", []string{}},
	} {
		cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), c.toml))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Names(); !slices.Equal(got, c.want) {
			t.Errorf("%q: servers %v, want %v", c.toml, got, c.want)
		}
	}
}

func TestWeftCommand(t *testing.T) {
	for _, c := range []struct {
		args     []string
		sub, cfg string
	}{
		{[]string{"mcp-server"}, "mcp-server", ""},
		{[]string{"--config", "a.toml", "mcp-server"}, "mcp-server", "a.toml"},
		{[]string{"--log-level", "debug", "mcp-server", "--config=b.toml"}, "mcp-server", "b.toml"},
		{[]string{"serve", "--listen", "x"}, "serve", ""},
	} {
		if sub, cfg := weftCommand(c.args); sub != c.sub || cfg != c.cfg {
			t.Errorf("weftCommand(%q) = %q, %q; want %q, %q", c.args, sub, cfg, c.sub, c.cfg)
		}
	}
}
