package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// isolate gives the test its own HOME and working directory, so no real
// ~/.weft or ./.mcp.json leaks in. It returns the working directory.
func isolate(t *testing.T) string {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("WEFT_CONFIG", "")
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const fullExample = `# weft config
[gateway]
listen = "127.0.0.1:9999"
separator = "::"

[limits]
max_tools = 10
max_message_bytes = 1024

[security]
block_private_urls = false
autonomy = "full"
pinning = "warn"
http_token_env = "WEFT_TOKEN"

[tools.mcp_servers.ev]
target = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { KEY = "${VAR}" }
cwd = "/tmp"
type = "stdio"
timeout_ms = 1000
enabled = false
prefix = "e"
allowed_tools = ["get_*"]
denied_tools = ["delete_*"]
protocol_version = "2025-11-25"
inherit_env = true

[tools.mcp_servers.remote]
target = "https://example.com/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
prefix = ""

[tools.mcp_servers.legacy]
target = "https://example.com/sse"
type = "sse"
`

func TestLoadFullExample(t *testing.T) {
	dir := isolate(t)
	path := writeFile(t, filepath.Join(dir, "weft.toml"), fullExample)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != path || cfg.Gateway.Listen != "127.0.0.1:9999" || cfg.Gateway.Separator != "::" {
		t.Errorf("gateway = %+v, path %q", cfg.Gateway, cfg.Path)
	}
	if cfg.Limits.MaxTools != 10 || cfg.Limits.MaxMessageBytes != 1024 {
		t.Errorf("limits = %+v", cfg.Limits)
	}
	if cfg.Security != (Security{Autonomy: AutonomyFull, Pinning: PinningWarn, HTTPTokenEnv: "WEFT_TOKEN", MaxDelegationDepth: DefaultMaxDelegationDepth}) {
		t.Errorf("security = %+v", cfg.Security)
	}
	if len(cfg.Servers) != 3 {
		t.Fatalf("servers = %v", cfg.Names())
	}
	ev := cfg.Servers["ev"]
	if ev.Name != "ev" || ev.Source != path || ev.Target != "npx" || len(ev.Args) != 2 || ev.Env["KEY"] != "${VAR}" ||
		ev.Cwd != "/tmp" || ev.Type != TransportStdio || ev.TimeoutMS != 1000 || ev.IsEnabled() ||
		ev.Namespace() != "e" || ev.AllowedTools[0] != "get_*" || ev.DeniedTools[0] != "delete_*" ||
		ev.ProtocolVersion != "2025-11-25" || !ev.InheritEnv {
		t.Errorf("ev = %+v", ev)
	}
	remote := cfg.Servers["remote"]
	if remote.Type != TransportHTTP || remote.Headers["Authorization"] != "Bearer ${TOKEN}" || remote.Namespace() != "" ||
		remote.TimeoutMS != DefaultTimeoutMS || !remote.IsEnabled() {
		t.Errorf("remote = %+v", remote)
	}
	if cfg.Servers["legacy"].Type != TransportSSE {
		t.Errorf("legacy type = %q", cfg.Servers["legacy"].Type)
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := isolate(t)
	for name, content := range map[string]string{"missing": "", "empty": "\n", "partial": "[gateway]\n[limits]\n"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name+".toml")
			if name != "missing" {
				writeFile(t, path, content)
			}
			cfg, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			want := Default()
			want.Path = path
			if cfg.Path != path || !reflect.DeepEqual(cfg.Gateway, want.Gateway) || cfg.Limits != want.Limits || cfg.Security != want.Security || len(cfg.Servers) != 0 {
				t.Errorf("got %+v, want %+v", cfg, want)
			}
			if cfg.Gateway.Listen != DefaultListen || cfg.Limits.MaxTools != DefaultMaxTools || cfg.Limits.MaxMessageBytes != 16<<20 {
				t.Errorf("defaults not applied: %+v", cfg)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := isolate(t)
	tests := []struct {
		name, content string
		want          []string
	}{
		{"unknown server key", "[tools.mcp_servers.x]\ntarget = \"npx\"\n\ntagret = \"y\"\n",
			[]string{"bad.toml:4:1:", `unknown key "tools.mcp_servers.x.tagret"`, "target, args"}},
		{"unknown table", "[gatway]\nlisten = \"x\"\n", []string{"bad.toml:1:2:", `unknown key "gatway"`}},
		{"unknown gateway key", "[gateway]\n\n\nport = 1\n", []string{"bad.toml:4:1:", `"gateway.port"`, "listen, separator"}},
		{"wrong type", "[limits]\nmax_tools = \"many\"\n", []string{"bad.toml:2:", "limits.max_tools"}},
		{"syntax", "[gateway\n", []string{"bad.toml:1:"}},
		{"negative limit", "[limits]\nmax_tools = -1\n", []string{"max_tools is -1"}},
		{"bad autonomy", "[security]\nautonomy = \"yolo\"\n", []string{`autonomy is "yolo"`}},
		{"invalid server", "[gateway]\n\n[tools.mcp_servers.bad]\ntarget = \"a|b\"\n",
			[]string{"bad.toml:3:", `server "bad": target contains "|"`}},
		{"bad type", "[tools.mcp_servers.w]\ntarget = \"ws://x\"\ntype = \"ws\"\n", []string{`type "ws" is unknown`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "bad.toml"), tt.content)
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTransportInference(t *testing.T) {
	tests := []struct{ target, typ, want string }{
		{"npx", "", TransportStdio},
		{"/usr/bin/node", "", TransportStdio},
		{"http://example.com/mcp", "", TransportHTTP},
		{"HTTPS://example.com/mcp", "", TransportHTTP},
		{"https://example.com/sse", "sse", TransportSSE},
		{"https://example.com/mcp", "http", TransportHTTP},
		{"ftp://example.com", "", TransportStdio},
	}
	for _, tt := range tests {
		s := &Server{Target: tt.target, Type: tt.typ}
		if got := s.Transport(); got != tt.want {
			t.Errorf("Transport(%q, %q) = %q, want %q", tt.target, tt.typ, got, tt.want)
		}
	}
	dir := isolate(t)
	path := writeFile(t, filepath.Join(dir, "weft.toml"),
		"[tools.mcp_servers.a]\ntarget = \"uvx\"\n[tools.mcp_servers.b]\ntarget = \"http://example.com/mcp\"\n"+
			"[tools.mcp_servers.c]\ntarget = \"https://example.com/sse\"\ntype = \"sse\"\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a": TransportStdio, "b": TransportHTTP, "c": TransportSSE} {
		if got := cfg.Servers[name].Type; got != want {
			t.Errorf("%s: type %q, want %q", name, got, want)
		}
	}
}

func TestLoadMergesMCPJSON(t *testing.T) {
	cwd := isolate(t)
	home, _ := os.UserHomeDir()
	confDir := filepath.Join(t.TempDir(), "conf")
	path := writeFile(t, filepath.Join(confDir, "weft.toml"), "[tools.mcp_servers.shared]\ntarget = \"from-toml\"\n")
	writeFile(t, filepath.Join(confDir, ".mcp.json"), `{"mcpServers": {
		"shared": {"command": "from-beside-json"},
		"beside": {"command": "npx", "args": ["-y", "beside"], "env": {"K": "v"}},
		"twice": {"command": "beside-wins"},
		"remote": {"type": "streamable-http", "url": "https://example.com/mcp", "headers": {"X": "y"}},
		"camel": {"type": "streamableHttp", "url": "https://example.com/mcp"},
		"old": {"type": "sse", "url": "https://example.com/sse"},
		"off": {"command": "x", "disabled": true}
	}}`)
	writeFile(t, filepath.Join(cwd, ".mcp.json"), `{"mcpServers": {"twice": {"command": "cwd-loses"}, "cwd": {"command": "c"}}}`)
	writeFile(t, filepath.Join(home, ".weft", ".mcp.json"), `{"mcpServers": {"cwd": {"command": "home-loses"}, "home": {"url": "https://example.com/h"}}}`)

	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ target, typ, source string }{
		"shared": {"from-toml", TransportStdio, path},
		"beside": {"npx", TransportStdio, filepath.Join(confDir, ".mcp.json")},
		"twice":  {"beside-wins", TransportStdio, filepath.Join(confDir, ".mcp.json")},
		"remote": {"https://example.com/mcp", TransportHTTP, filepath.Join(confDir, ".mcp.json")},
		"camel":  {"https://example.com/mcp", TransportHTTP, filepath.Join(confDir, ".mcp.json")},
		"old":    {"https://example.com/sse", TransportSSE, filepath.Join(confDir, ".mcp.json")},
		"off":    {"x", TransportStdio, filepath.Join(confDir, ".mcp.json")},
		"cwd":    {"c", TransportStdio, ".mcp.json"},
		"home":   {"https://example.com/h", TransportHTTP, filepath.Join(home, ".weft", ".mcp.json")},
	}
	if len(cfg.Servers) != len(want) {
		t.Errorf("servers = %v", cfg.Names())
	}
	for name, w := range want {
		s := cfg.Servers[name]
		if s == nil {
			t.Errorf("%s missing", name)
			continue
		}
		if s.Target != w.target || s.Type != w.typ || s.Source != w.source || s.Name != name || s.TimeoutMS != DefaultTimeoutMS {
			t.Errorf("%s = %+v, want %+v", name, s, w)
		}
	}
	if cfg.Servers["off"].IsEnabled() || cfg.Servers["beside"].Env["K"] != "v" || cfg.Servers["remote"].Headers["X"] != "y" {
		t.Error("fields of .mcp.json entries lost")
	}
}

func TestLoadBadMCPJSON(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "weft.toml")
	for name, tt := range map[string]struct{ json, want string }{
		"syntax":     {"{\n\"mcpServers\": {,}}", ".mcp.json:2"},
		"bad type":   {`{"mcpServers": {"x": {"type": "ws", "url": "ws://h"}}}`, `server "x": type "ws" is unknown`},
		"both":       {`{"mcpServers": {"x": {"command": "a", "url": "https://h"}}}`, "both command and url"},
		"bad server": {`{"mcpServers": {"x": {"command": "a;b"}}}`, `.mcp.json: server "x": target contains ";"`},
	} {
		t.Run(name, func(t *testing.T) {
			writeFile(t, filepath.Join(dir, ".mcp.json"), tt.json)
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestResolvePath(t *testing.T) {
	dir := isolate(t)
	home, _ := os.UserHomeDir()
	if got, want := ResolvePath(""), filepath.Join(home, ".weft", "weft.toml"); got != want {
		t.Errorf("fallback = %q, want %q", got, want)
	}
	writeFile(t, filepath.Join(dir, "weft.toml"), "")
	if got, want := ResolvePath(""), filepath.Join(dir, "weft.toml"); got != want {
		t.Errorf("cwd = %q, want %q", got, want)
	}
	t.Setenv("WEFT_CONFIG", "/env/weft.toml")
	if got := ResolvePath(""); got != "/env/weft.toml" {
		t.Errorf("env = %q", got)
	}
	if got := ResolvePath("/flag.toml"); got != "/flag.toml" {
		t.Errorf("flag = %q", got)
	}
}

func TestLoadWarningsAndBlocking(t *testing.T) {
	dir := isolate(t)
	path := writeFile(t, filepath.Join(dir, "weft.toml"), "[tools.mcp_servers.local]\ntarget = \"http://127.0.0.1:8080/mcp\"\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "loopback") {
		t.Errorf("warnings = %q", cfg.Warnings)
	}
	writeFile(t, path, "[security]\nblock_private_urls = true\n\n[tools.mcp_servers.local]\ntarget = \"http://localhost:8080/mcp\"\n")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "weft.toml:4:") || !strings.Contains(err.Error(), "block_private_urls") {
		t.Errorf("err = %v", err)
	}
}

func TestMCPJSONPaths(t *testing.T) {
	dir := isolate(t)
	home, _ := os.UserHomeDir()
	homeJSON := filepath.Join(home, ".weft", ".mcp.json")
	tests := []struct {
		path string
		want []string
	}{
		{filepath.Join(dir, "weft.toml"), []string{filepath.Join(dir, ".mcp.json"), homeJSON}},
		{"/etc/weft/weft.toml", []string{"/etc/weft/.mcp.json", ".mcp.json", homeJSON}},
		{filepath.Join(home, ".weft", "weft.toml"), []string{homeJSON, ".mcp.json"}},
	}
	for _, tt := range tests {
		if got := MCPJSONPaths(tt.path); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("MCPJSONPaths(%s) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestLoadMaxDelegationDepth checks security.max_delegation_depth: default 3, a set
// value kept, a negative one refused.
func TestLoadMaxDelegationDepth(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]int{"": 3, "[security]\nmax_delegation_depth = 5\n": 5, "[security]\nmax_delegation_depth = -1\n": -1} {
		path := filepath.Join(dir, "weft.toml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path)
		if want < 0 {
			if err == nil || !strings.Contains(err.Error(), "max_delegation_depth") {
				t.Errorf("%q: err = %v, want a max_delegation_depth error", body, err)
			}
			continue
		}
		if err != nil || cfg.Security.MaxDelegationDepth != want {
			t.Errorf("%q: depth %v, err %v; want %d", body, cfg, err, want)
		}
	}
}
