package clients

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// existing is a client file with other servers and settings, to show an
// edit keeps them.
func existing(c Client) string {
	switch c.format {
	case codexTOML:
		return "model = \"o3\" # keep me\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n\n" +
			"[mcp_servers.weft]\ncommand = \"/old/weft\"\n\n[mcp_servers.weft.env]\nA = \"1\"\n\n[profiles.fast]\nmodel = \"o4-mini\"\n"
	case vscodeJSON:
		return `{"inputs": [{"id": "key", "type": "promptString"}], "servers": {"other": {"type": "stdio", "command": "npx", "args": ["-y", "x"]}}}`
	}
	return `{"numStartups": 3, "mcpServers": {"other": {"command": "npx", "args": ["-y", "x"], "env": {"TOKEN": "<t>"}}}, "zz": {"a": [1, 2]}}`
}

// TestEditGolden writes weft into every client's documented format, as a
// local command and as a URL, over a file that already has other servers
// and settings; the result must match testdata/NAME-KIND.golden.
func TestEditGolden(t *testing.T) {
	stdio := Entry{Name: "weft", Command: "/usr/local/bin/weft", Args: []string{"mcp-server"}}
	remote := Entry{Name: "weft", URL: "http://127.0.0.1:7777/mcp"}
	for _, c := range All() {
		for kind, e := range map[string]Entry{"stdio": stdio, "http": remote} {
			t.Run(c.Name+"-"+kind, func(t *testing.T) {
				got, err := c.Edit([]byte(existing(c)), e)
				if !c.http && kind == "http" {
					if err == nil || !strings.Contains(err.Error(), "only local commands") {
						t.Fatalf("%s took a URL: %v", c.Name, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", c.Name+"-"+kind+".golden"), string(got))
				again, err := c.Edit(got, e)
				if err != nil || string(again) != string(got) {
					t.Errorf("a second add changed the file:\n%s", again)
				}
			})
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

// TestPathPerOS: each client's file on each OS and scope, as the clients
// document them.
func TestPathPerOS(t *testing.T) {
	home, proj := filepath.FromSlash("/h"), filepath.FromSlash("/p")
	for _, c := range []struct {
		client, scope, goos, want string
	}{
		{"claude-desktop", ScopeUser, "darwin", "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", ScopeUser, "windows", "/appdata/Claude/claude_desktop_config.json"},
		{"claude-desktop", ScopeUser, "linux", "/h/.config/Claude/claude_desktop_config.json"},
		{"claude-code", ScopeUser, "linux", "/h/.claude.json"},
		{"claude-code", ScopeProject, "darwin", "/p/.mcp.json"},
		{"cursor", ScopeUser, "windows", "/h/.cursor/mcp.json"},
		{"cursor", ScopeProject, "linux", "/p/.cursor/mcp.json"},
		{"vscode", ScopeProject, "linux", "/p/.vscode/mcp.json"},
		{"vscode", ScopeUser, "darwin", "/h/Library/Application Support/Code/User/mcp.json"},
		{"windsurf", ScopeUser, "darwin", "/h/.codeium/windsurf/mcp_config.json"},
		{"codex", ScopeUser, "windows", "/h/.codex/config.toml"},
	} {
		cl, err := Lookup(c.client)
		if err != nil {
			t.Fatal(err)
		}
		env := Env{Home: home, Project: proj, GOOS: c.goos, AppData: filepath.FromSlash("/appdata")}
		if got := cl.Path(c.scope, env); got != filepath.FromSlash(c.want) {
			t.Errorf("%s %s on %s: %s, want %s", c.client, c.scope, c.goos, got, c.want)
		}
	}
}

// TestWriteKeepsBackupAndListFindsWeft: Write creates a missing file 0600,
// keeps the old content as .bak on a rewrite, and List then reports weft
// for that client only.
func TestWriteKeepsBackupAndListFindsWeft(t *testing.T) {
	env := Env{Home: t.TempDir(), Project: t.TempDir(), GOOS: "linux"}
	c, _ := Lookup("cursor")
	path := c.Path(ScopeUser, env)
	e := Entry{Name: "weft", Command: "/opt/weft", Args: []string{"mcp-server"}}
	if err := c.Write(path, e); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v, want mode 0600", st, err)
	}
	if _, err := os.Stat(path + ".bak"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a new file left a .bak: %v", err)
	}
	first, _ := os.ReadFile(path)
	if err := c.Write(path, Entry{Name: "weft", URL: "http://127.0.0.1:7777/mcp"}); err != nil {
		t.Fatal(err)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != string(first) {
		t.Errorf(".bak = %q, want the previous file %q", bak, first)
	}
	for _, st := range List(env) {
		has := len(st.Servers) > 0
		if want := st.Client.Name == "cursor" && st.Scope == ScopeUser; has != want || st.Err != nil {
			t.Errorf("%s %s: servers %v, err %v", st.Client.Name, st.Scope, st.Servers, st.Err)
		}
	}
}

// TestWriteRefusesWhatItCannotEdit: a file that is not JSON (or TOML) is
// left alone with a message saying what to do.
func TestWriteRefusesWhatItCannotEdit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"cursor", "codex"} {
		c, _ := Lookup(name)
		path := filepath.Join(dir, name)
		bad := "{ // a comment\n"
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		err := c.Write(path, Entry{Name: "weft", Command: "/opt/weft"})
		if err == nil || !strings.Contains(err.Error(), "--print") {
			t.Errorf("%s: %v, want a refusal pointing at --print", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != bad {
			t.Errorf("%s: the file changed to %q", name, got)
		}
	}
}

func TestScopeAndLookup(t *testing.T) {
	if _, err := Lookup("emacs"); !errors.Is(err, ErrUnknownClient) || !strings.Contains(err.Error(), "cursor") {
		t.Errorf("Lookup(emacs) = %v", err)
	}
	c, _ := Lookup("windsurf")
	if _, err := c.Scope(ScopeProject); err == nil || !strings.Contains(err.Error(), "--scope user") {
		t.Errorf("windsurf project scope: %v", err)
	}
	v, _ := Lookup("vscode")
	if s, _ := v.Scope(""); s != ScopeProject {
		t.Errorf("vscode default scope %q, want project", s)
	}
}
