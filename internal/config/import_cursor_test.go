package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCursorConventions: Cursor's ${env:VAR} becomes weft's ${VAR}, a
// URL without a type whose path ends in /sse is SSE (else HTTP), and envFile
// is refused with a message naming the server and what to do.
func TestImportCursorConventions(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "mcp.json"), `{"mcpServers": {
		"gh": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"TOKEN": "${env:GH_TOKEN}", "FIXED": "1"}},
		"api": {"url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer ${env:API_KEY}"}},
		"events": {"url": "https://api.example.com/v1/sse"}
	}}`)
	servers, err := Import(file)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Server{}
	for _, s := range servers {
		byName[s.Name] = s
	}
	if got := byName["gh"].Env["TOKEN"]; got != "${GH_TOKEN}" {
		t.Errorf("env TOKEN = %q, want ${GH_TOKEN}", got)
	}
	if got := byName["api"].Headers["Authorization"]; got != "Bearer ${API_KEY}" {
		t.Errorf("header = %q, want Bearer ${API_KEY}", got)
	}
	if got := byName["api"].Type; got != TransportHTTP {
		t.Errorf("api type %q, want http", got)
	}
	if got := byName["events"].Type; got != TransportSSE {
		t.Errorf("events type %q, want sse", got)
	}

	bad := writeFile(t, filepath.Join(dir, "envfile.json"), `{"mcpServers": {"db": {"command": "npx", "envFile": ".env"}}}`)
	_, err = Import(bad)
	if err == nil || !strings.Contains(err.Error(), `server "db": envFile ".env"`) || !strings.Contains(err.Error(), "under env") {
		t.Errorf("envFile: %v, want a refusal naming the server and saying to use env", err)
	}
}
