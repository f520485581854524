package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownKeyListsEveryKnownKey checks that the known keys an unknown-key
// error lists come from the decoding types, nested tables included.
func TestUnknownKeyListsEveryKnownKey(t *testing.T) {
	tests := []struct {
		name, toml string
		want       []string
	}{
		{"root", "colour = 1\n", []string{"gateway", "tools", "audit", "metrics"}},
		{"gateway", "[gateway]\nlisen = \"x\"\n", []string{"listen", "read_mcp_json", "ready_requires", "max_connections", "auth"}},
		{"gateway.auth", "[gateway.auth]\nissuer = \"https://a\"\naudiance = \"x\"\n", []string{"issuer", "audience", "jwks_url"}},
		{"server", "[tools.mcp_servers.a]\ntarget = \"x\"\ntimeout = 1\n", []string{"target", "timeout_ms", "oauth"}},
		{"server.oauth", "[tools.mcp_servers.a]\ntarget = \"https://h/mcp\"\n[tools.mcp_servers.a.oauth]\nclientid = \"x\"\n", []string{"client_id", "scopes", "grant"}},
		{"router.planning", "[router.planning]\nstrategi = \"react\"\n", []string{"strategy", "max_planning_depth"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "weft.toml")
			if err := os.WriteFile(p, []byte(tt.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), "unknown key") {
				t.Fatalf("Load: err = %v, want an unknown-key error", err)
			}
			_, known, _ := strings.Cut(err.Error(), "known keys there: ")
			for _, k := range tt.want {
				if !strings.Contains(", "+known, ", "+k+",") && !strings.HasSuffix(known, k+")") {
					t.Errorf("known keys %q lack %q", known, k)
				}
			}
		})
	}
}
