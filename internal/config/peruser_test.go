package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestPerUserValidation(t *testing.T) {
	rows := []struct {
		name, entry, wantErr string
	}{
		{"stdio", "target = \"/bin/srv\"\nper_user = true\nidle_timeout = \"5m\"\n", ""},
		{"remote", "target = \"https://mcp.example.com/mcp\"\noauth = { per_user = true }\n", ""},
		{"per_user on a remote server", "target = \"https://mcp.example.com/mcp\"\nper_user = true\n", "per_user applies to stdio servers"},
		{"machine grant", "target = \"https://mcp.example.com/mcp\"\noauth = { per_user = true, grant = \"client_credentials\", client_id = \"x\", client_secret_env = \"X\" }\n", "needs the authorization_code grant"},
		{"own header", "target = \"https://mcp.example.com/mcp\"\nheaders = { Authorization = \"Bearer x\" }\noauth = { per_user = true }\n", "exclude each other"},
		{"negative idle", "target = \"/bin/srv\"\nper_user = true\nidle_timeout = \"-1s\"\n", "is negative"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), "weft.toml"), "[gateway.auth]\nissuer = \"https://auth.example.com\"\n\n[tools.mcp_servers.s]\n"+row.entry)
			cfg, err := Load(path)
			if row.wantErr == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !cfg.Servers["s"].IsPerUser() || len(cfg.Warnings) > 0 && strings.Contains(strings.Join(cfg.Warnings, "\n"), "per_user") {
					t.Errorf("not per-user, or warned: %v", cfg.Warnings)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), row.wantErr) {
				t.Errorf("error %v, want one saying %q", err, row.wantErr)
			}
		})
	}
}

func TestPerUserWithoutFaceAuthWarns(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "weft.toml"), "[tools.mcp_servers.s]\ntarget = \"/bin/srv\"\nper_user = true\n")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(cfg.Warnings, "\n"), `server "s" is per_user, but [gateway.auth] is not set`) {
		t.Errorf("warnings %q name no per-user server without [gateway.auth]", cfg.Warnings)
	}
	if got := cfg.Servers["s"].UserIdleTimeout(); got != DefaultUserIdleTimeout {
		t.Errorf("default idle_timeout %v, want %v", got, DefaultUserIdleTimeout)
	}
}
