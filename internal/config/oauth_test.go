package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOAuthKeys(t *testing.T) {
	text := `
[security]
token_store = "file"

[gateway.auth]
issuer = "https://auth.example.com"
audience = "https://weft.example.com/mcp"
required_scopes = ["mcp:tools"]
clock_skew = "30s"

[tools.mcp_servers.github]
target = "https://api.example.com/mcp"

[tools.mcp_servers.github.oauth]
client_id = "weft-cli"
client_secret_env = "GITHUB_CLIENT_SECRET"
scopes = ["repo", "read:org"]
redirect_port = 8765
`
	cfg, err := parse([]byte(text), "weft.toml")
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Servers["github"].OAuth
	if o == nil || o.ClientID != "weft-cli" || o.ClientSecretEnv != "GITHUB_CLIENT_SECRET" || len(o.Scopes) != 2 || o.RedirectPort != 8765 || o.EffectiveGrant() != GrantAuthorizationCode {
		t.Errorf("oauth table = %+v", o)
	}
	if cfg.Security.TokenStore != "file" {
		t.Errorf("token_store = %q", cfg.Security.TokenStore)
	}
	a := cfg.Gateway.Auth
	if a == nil || a.Issuer != "https://auth.example.com" || a.ClockSkew.Std() != 30*time.Second || a.RequiredScopes[0] != "mcp:tools" {
		t.Errorf("gateway.auth = %+v", a)
	}
	c := cfg.Servers["github"].Clone()
	c.OAuth.Scopes[0] = "changed"
	if o.Scopes[0] != "repo" {
		t.Error("Clone shares the oauth scopes")
	}
	if c.Fingerprint() == cfg.Servers["github"].Fingerprint() {
		t.Error("a different oauth table leaves the fingerprint unchanged; a reload would keep the old login settings")
	}
}

func TestOAuthRejections(t *testing.T) {
	rows := []struct{ name, text, want string }{
		{"grant", "[tools.mcp_servers.a]\ntarget = \"https://x/mcp\"\noauth = { grant = \"password\" }", "authorization_code or client_credentials"},
		{"machine without secret", "[tools.mcp_servers.a]\ntarget = \"https://x/mcp\"\noauth = { grant = \"client_credentials\", client_id = \"c\" }", "client_secret_env"},
		{"secret in place of a name", "[tools.mcp_servers.a]\ntarget = \"https://x/mcp\"\noauth = { client_id = \"c\", client_secret_env = \"s3cr3t-v@lue\" }", "name the variable"},
		{"port", "[tools.mcp_servers.a]\ntarget = \"https://x/mcp\"\noauth = { redirect_port = 70000 }", "redirect_port"},
		{"stdio", "[tools.mcp_servers.a]\ntarget = \"srv\"\noauth = { client_id = \"c\" }", "http and sse servers only"},
		{"metadata url", "[tools.mcp_servers.a]\ntarget = \"https://x/mcp\"\noauth = { client_metadata_url = \"http://x/doc.json\" }", "https URL with a path"},
		{"token store", "[security]\ntoken_store = \"vault\"", "auto, keychain or file"},
		{"issuer", "[gateway.auth]\nissuer = \"auth.example.com\"", "gateway.auth.issuer"},
		{"skew", "[gateway.auth]\nissuer = \"https://a\"\nclock_skew = \"-5s\"", "clock_skew"},
	}
	for _, r := range rows {
		path := filepath.Join(t.TempDir(), "weft.toml")
		if err := os.WriteFile(path, []byte(r.text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: err = %v, want it to mention %q", r.name, err, r.want)
		}
	}
}

func TestAddServerWritesOAuthTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "weft.toml")
	s := &Server{Name: "gh", Target: "https://api.example.com/mcp", Type: TransportHTTP, OAuth: &OAuth{ClientID: "weft-cli", Scopes: []string{"repo"}}}
	if err := AddServer(path, s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	cfg, err := parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Servers["gh"].OAuth; o == nil || o.ClientID != "weft-cli" || o.Scopes[0] != "repo" {
		t.Errorf("written oauth table reads back as %+v:\n%s", o, data)
	}
}
