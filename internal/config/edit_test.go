package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const commented = `# weft config - keep this comment
[gateway]
listen = "127.0.0.1:7777" # trailing comment

# The everything server.
[tools.mcp_servers.ev]
target = "npx"
args = [
  "-y",   # comment in array
  "@modelcontextprotocol/server-everything",
]

[tools.mcp_servers.ev.env]
KEY = "v"

[tools.mcp_servers.ev.headers]
# odd but legal
X = "y"

# git is next
[tools.mcp_servers."git"]
target = "uvx"
args = ["mcp-server-git"]

[tools.mcp_servers]
inline = { target = "y", args = ["a"] }

[tools.mcp_servers.other]
target = "x"
env.A = "1"
`

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails if an edit left a temporary file behind.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestAddServerKeepsFile(t *testing.T) {
	dir := isolate(t)
	path := writeFile(t, filepath.Join(dir, "weft.toml"), commented)
	s := &Server{Name: "fetch", Target: "uvx", Args: []string{"mcp-server-fetch"}, Env: map[string]string{"TOKEN": "${FETCH_TOKEN}"}}
	if err := AddServer(path, s); err != nil {
		t.Fatal(err)
	}
	got := readString(t, path)
	if !strings.HasPrefix(got, commented) {
		t.Fatalf("original bytes changed:\n%s", got)
	}
	added := strings.TrimPrefix(got, commented)
	want := "\n[tools.mcp_servers.fetch]\ntarget = 'uvx'\nargs = ['mcp-server-fetch']\nenv = {TOKEN = '${FETCH_TOKEN}'}\n"
	if added != want {
		t.Errorf("appended %q, want %q", added, want)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Names(); !reflect.DeepEqual(got, []string{"ev", "fetch", "git", "inline", "other"}) {
		t.Errorf("servers = %v", got)
	}
	err = AddServer(path, &Server{Name: "git", Target: "x"})
	if err == nil || !strings.Contains(err.Error(), `server "git" already exists in `+path) {
		t.Errorf("duplicate: %v", err)
	}
	if err := AddServer(path, &Server{Name: "bad", Target: "a|b"}); err == nil {
		t.Error("invalid server added")
	}
	noTemps(t, dir)
}

func TestAddServerNoTrailingNewlineAndCRLF(t *testing.T) {
	dir := isolate(t)
	for name, tt := range map[string]struct{ orig, want string }{
		"no newline": {"[gateway]\nlisten = \"x:1\"", "[gateway]\nlisten = \"x:1\"\n\n[tools.mcp_servers.a]\ntarget = 'npx'\n"},
		"blank end":  {"# hi\n\n", "# hi\n\n[tools.mcp_servers.a]\ntarget = 'npx'\n"},
		"crlf":       {"# hi\r\n[gateway]\r\n", "# hi\r\n[gateway]\r\n\r\n[tools.mcp_servers.a]\r\ntarget = 'npx'\r\n"},
		"empty":      {"", "[tools.mcp_servers.a]\ntarget = 'npx'\n"},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, name+".toml"), tt.orig)
			if err := AddServer(path, &Server{Name: "a", Target: "npx", Type: TransportStdio, TimeoutMS: DefaultTimeoutMS}); err != nil {
				t.Fatal(err)
			}
			if got := readString(t, path); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAddServerRoundTrip(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "new", "sub", "weft.toml")
	servers := []*Server{
		{Name: "full", Target: "node", Args: []string{"server.js", `quo"te`, "it's"}, Env: map[string]string{"A": "1", "B": "${B}"},
			Cwd: "/srv", TimeoutMS: 1234, Enabled: ptr(false), Prefix: ptr(""), AllowedTools: []string{"get_*"},
			DeniedTools: []string{"rm"}, ProtocolVersion: "2025-06-18", InheritEnv: true},
		{Name: "remote", Target: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${T}"}},
		{Name: "legacy", Target: "https://example.com/sse", Type: TransportSSE, Prefix: ptr("old")},
	}
	for _, s := range servers {
		if err := AddServer(path, s); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		want := s.Clone()
		want.Source, want.Type, want.TimeoutMS = path, want.Transport(), defaultTimeout(want.TimeoutMS)
		if got := cfg.Servers[s.Name]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", s.Name, got, want)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", st.Mode().Perm())
	}
	for _, d := range []string{filepath.Dir(path), filepath.Dir(filepath.Dir(path))} {
		if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
			t.Errorf("dir %s mode %v, want 0700", d, st.Mode().Perm())
		}
	}
	noTemps(t, filepath.Dir(path))
}

func TestRemoveServer(t *testing.T) {
	dir := isolate(t)
	tests := []struct{ name, want string }{
		{"ev", strings.Replace(commented, commented[strings.Index(commented, "# The everything"):strings.Index(commented, "# git is next")], "", 1)},
		{"git", strings.Replace(commented, "# git is next\n[tools.mcp_servers.\"git\"]\ntarget = \"uvx\"\nargs = [\"mcp-server-git\"]\n\n", "", 1)},
		{"inline", strings.Replace(commented, "inline = { target = \"y\", args = [\"a\"] }\n\n", "", 1)},
		{"other", strings.TrimSuffix(commented, "\n[tools.mcp_servers.other]\ntarget = \"x\"\nenv.A = \"1\"\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "weft.toml"), commented)
			if err := os.Chmod(path, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := RemoveServer(path, tt.name); err != nil {
				t.Fatal(err)
			}
			if got := readString(t, path); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			cfg, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Servers[tt.name] != nil || len(cfg.Servers) != 3 {
				t.Errorf("servers after remove: %v", cfg.Names())
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640 kept", st.Mode().Perm())
			}
			noTemps(t, dir)
		})
	}
	path := writeFile(t, filepath.Join(dir, "weft.toml"), commented)
	if err := RemoveServer(path, "nope"); err == nil || !strings.Contains(err.Error(), `server "nope" not found in `+path) {
		t.Errorf("missing server: %v", err)
	}
	if err := RemoveServer(filepath.Join(dir, "absent.toml"), "ev"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing file: %v", err)
	}
	if readString(t, path) != commented {
		t.Error("failed remove changed the file")
	}
}

func TestRemoveKeepsDetachedComments(t *testing.T) {
	dir := isolate(t)
	orig := "[gateway]\nlisten = \"x:1\"\n# separator = \"::\"\n[tools.mcp_servers.a]\ntarget = \"a\"\n\n# detached\n\n[tools.mcp_servers.b]\ntarget = \"b\"\n"
	path := writeFile(t, filepath.Join(dir, "weft.toml"), orig)
	if err := RemoveServer(path, "b"); err != nil {
		t.Fatal(err)
	}
	if err := RemoveServer(path, "a"); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "[gateway]\nlisten = \"x:1\"\n# separator = \"::\"\n# detached\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRemoveDottedKeys(t *testing.T) {
	dir := isolate(t)
	orig := "[tools]\nmcp_servers.dotted.target = \"y\"\nmcp_servers.dotted.args = [\"a\"]\nmcp_servers.keep.target = \"k\"\n"
	path := writeFile(t, filepath.Join(dir, "weft.toml"), orig)
	if err := RemoveServer(path, "dotted"); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "[tools]\nmcp_servers.keep.target = \"k\"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEditRefusesBrokenResult(t *testing.T) {
	dir := isolate(t)
	for name, orig := range map[string]string{
		"inline tools": "tools = { mcp_servers = { a = { target = \"x\" } } }\n",
		"broken":       "[gateway\n",
		"unknown key":  "[gateway]\nport = 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "weft.toml"), orig)
			if err := AddServer(path, &Server{Name: "b", Target: "npx"}); err == nil {
				t.Error("AddServer wrote a file that does not load")
			}
			if readString(t, path) != orig {
				t.Error("file changed")
			}
			noTemps(t, dir)
		})
	}
}

func TestSetServerEnabled(t *testing.T) {
	dir := isolate(t)
	orig := "[tools.mcp_servers.a] # A\ntarget = \"a\"\n\n[tools.mcp_servers.b]\ntarget = \"b\"\nenabled = true # keep\n"
	path := writeFile(t, filepath.Join(dir, "weft.toml"), orig)
	if err := SetServerEnabled(path, "a", false); err != nil {
		t.Fatal(err)
	}
	if err := SetServerEnabled(path, "b", false); err != nil {
		t.Fatal(err)
	}
	want := "[tools.mcp_servers.a] # A\nenabled = false\ntarget = \"a\"\n\n[tools.mcp_servers.b]\ntarget = \"b\"\nenabled = false # keep\n"
	if got := readString(t, path); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := SetServerEnabled(path, "zz", true); err == nil {
		t.Error("unknown server accepted")
	}
}
