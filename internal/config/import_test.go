package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const claudeDesktop = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"}
    }
  }
}`

const dotMCPJSON = `{
  "mcpServers": {
    "api": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY}"}},
    "events": {"type": "sse", "url": "https://api.example.com/sse"},
    "git": {"command": "uvx", "args": ["mcp-server-git"], "cwd": "/repo", "someClientField": 1}
  }
}`

func TestImport(t *testing.T) {
	isolate(t)
	dir := t.TempDir() // not the working directory, whose .mcp.json Load would merge
	desktop := writeFile(t, filepath.Join(dir, "claude_desktop_config.json"), claudeDesktop)
	project := writeFile(t, filepath.Join(dir, ".mcp.json"), dotMCPJSON)
	tests := []struct {
		file string
		want []*Server
	}{
		{desktop, []*Server{
			{Name: "filesystem", Target: "npx", Type: TransportStdio, Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"}, Source: desktop},
			{Name: "github", Target: "docker", Type: TransportStdio, Args: []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
				Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"}, Source: desktop},
		}},
		{project, []*Server{
			{Name: "api", Target: "https://api.example.com/mcp", Type: TransportHTTP, Headers: map[string]string{"Authorization": "Bearer ${API_KEY}"}, Source: project},
			{Name: "events", Target: "https://api.example.com/sse", Type: TransportSSE, Source: project},
			{Name: "git", Target: "uvx", Type: TransportStdio, Args: []string{"mcp-server-git"}, Cwd: "/repo", Source: project},
		}},
	}
	for _, tt := range tests {
		got, err := Import(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Import(%s):\n got %+v\nwant %+v", filepath.Base(tt.file), got, tt.want)
		}
		// Render, then read back what was rendered.
		path := writeFile(t, filepath.Join(t.TempDir(), "weft.toml"), Render(got))
		cfg, err := Load(path)
		if err != nil {
			t.Fatalf("rendered TOML does not load: %v\n%s", err, Render(got))
		}
		for _, s := range got {
			back := cfg.Servers[s.Name]
			if back == nil || back.Fingerprint() != s.Fingerprint() {
				t.Errorf("%s changed through Render: %+v", s.Name, back)
			}
		}
		// And through AddServer, as weft mcp import does.
		dest := filepath.Join(t.TempDir(), "weft.toml")
		for _, s := range got {
			if err := AddServer(dest, s); err != nil {
				t.Fatal(err)
			}
		}
		if cfg, err := Load(dest); err != nil || len(cfg.Servers) != len(got) {
			t.Errorf("after AddServer: %v %v", cfg, err)
		}
	}
}

func TestImportErrors(t *testing.T) {
	dir := isolate(t)
	for name, tt := range map[string]struct{ content, want string }{
		"no servers":  {`{"globalShortcut": "x"}`, `has no "mcpServers" object`},
		"not json":    {"mcpServers:", "fix the JSON"},
		"bad command": {`{"mcpServers": {"x": {"command": "rm -rf / ; echo"}}}`, `server "x": target contains ";"`},
		"bad url":     {`{"mcpServers": {"x": {"url": "file:///etc/passwd"}}}`, `URL scheme "file"`},
		"bad name":    {`{"mcpServers": {"my server": {"command": "npx"}}}`, "name must be"},
		"no url":      {`{"mcpServers": {"x": {"type": "sse"}}}`, "needs a url"},
	} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, name+".json"), tt.content)
			_, err := Import(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want %q and the file name", err, tt.want)
			}
		})
	}
	if _, err := Import(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestRenderQuotesOddNames(t *testing.T) {
	if got := tomlKey("plain-name_1"); got != "plain-name_1" {
		t.Errorf("bare key = %q", got)
	}
	if got := tomlKey(`a.b "c"`); got != `"a.b \"c\""` {
		t.Errorf("quoted key = %q", got)
	}
	out := Render([]*Server{{Name: "a", Target: "npx"}, {Name: "b", Target: "https://example.com/sse", Type: TransportSSE}})
	want := "[tools.mcp_servers.a]\ntarget = 'npx'\n\n[tools.mcp_servers.b]\ntarget = 'https://example.com/sse'\ntype = 'sse'\n"
	if out != want {
		t.Errorf("Render = %q, want %q", out, want)
	}
}
