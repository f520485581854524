package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// The [gateway.auth] example of the configuration guide loads beside an
// agent coder and maps client_id cursor-team to it.
func TestConfigurationGuideAuthAgentsExample(t *testing.T) {
	block := guideExample(t, "## `[gateway.auth]`")
	dir := isolate(t)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), block+"\n[agents.coder]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a := cfg.Gateway.Auth; a.AgentClaim != "client_id" || a.Agents["cursor-team"] != "coder" || len(a.Agents) != 1 {
		t.Errorf("gateway.auth = %+v; want client_id cursor-team mapped to coder", a)
	}
}

func TestAuthAgentsRejectBadValues(t *testing.T) {
	auth := "[gateway.auth]\nissuer = \"https://auth.example.com\"\naudience = \"http://127.0.0.1:7777/mcp\"\n"
	tests := []struct{ name, toml, want string }{
		{"agents without a claim", auth + "[gateway.auth.agents]\nx = \"coder\"\n[agents.coder]\n", "needs agent_claim"},
		{"a claim without agents", auth + "agent_claim = \"azp\"\n", "gateway.auth.agents is empty"},
		{"an unknown agent", auth + "agent_claim = \"azp\"\n[gateway.auth.agents]\nx = \"ghost\"\n[agents.coder]\n", `maps "x" to "ghost", which is not an agent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			_, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), tt.toml))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line saying %q", err, tt.want)
			}
		})
	}
}
