package config

import (
	"net/url"
	"slices"
)

// OAuth is a server's [tools.mcp_servers.NAME.oauth] table. Without it a
// remote server that asks for OAuth still gets the authorization-code flow,
// with a dynamically registered client and the scopes it asks for.
type OAuth struct {
	// ClientID is a client registered with the server's authorization
	// server beforehand (else weft registers one dynamically).
	ClientID string `toml:"client_id,omitempty"`
	// ClientSecretEnv names the environment variable holding the client's
	// secret; the secret itself never goes in weft.toml.
	ClientSecretEnv string `toml:"client_secret_env,omitempty"`
	// Scopes replace the scopes the server asks for, on every grant.
	Scopes []string `toml:"scopes,omitempty"`
	// RedirectPort is the loopback port of the login callback (0: any free port).
	RedirectPort int `toml:"redirect_port,omitempty"`
	// Grant is authorization_code (a person logs in; the default) or
	// client_credentials (machine to machine, no browser).
	Grant string `toml:"grant,omitempty"`
	// ClientMetadataURL is an https URL where weft's client-ID metadata
	// document is published, used when the authorization server supports it.
	ClientMetadataURL string `toml:"client_metadata_url,omitempty"`
	// PerUser keeps one login per signed-in user of weft's face: each
	// user's calls carry their own token (peruser.go).
	PerUser bool `toml:"per_user,omitempty"`
}

// The grants [tools.mcp_servers.NAME.oauth] grant accepts.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	TokenStoreAuto         = "auto"
	TokenStoreKeychain     = "keychain"
	TokenStoreFile         = "file"
)

// EffectiveGrant returns the grant, authorization_code when unset.
func (o *OAuth) EffectiveGrant() string {
	if o == nil || o.Grant == "" {
		return GrantAuthorizationCode
	}
	return o.Grant
}

func (o *OAuth) clone() *OAuth {
	if o == nil {
		return nil
	}
	c := *o
	c.Scopes = slices.Clone(o.Scopes)
	return &c
}

// validateOAuth checks the oauth table against the transport.
func (s *Server) validateOAuth(typ string) error {
	o := s.OAuth
	if o == nil {
		return nil
	}
	if typ == TransportStdio {
		return invalidf("server %q: oauth applies to http and sse servers only; remove the oauth table", s.Name)
	}
	switch o.EffectiveGrant() {
	case GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" || o.ClientSecretEnv == "" {
			return invalidf("server %q: oauth grant client_credentials needs client_id and client_secret_env; add them", s.Name)
		}
	default:
		return invalidf("server %q: oauth grant %q is unknown; use authorization_code or client_credentials", s.Name, o.Grant)
	}
	if o.RedirectPort < 0 || o.RedirectPort > 65535 {
		return invalidf("server %q: oauth redirect_port %d is not a port; use 1-65535 or 0 for any free port", s.Name, o.RedirectPort)
	}
	if o.ClientSecretEnv != "" && !ValidEnvName(o.ClientSecretEnv) {
		return invalidf("server %q: oauth client_secret_env %q is not an environment variable name; name the variable, not the secret", s.Name, o.ClientSecretEnv)
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Path == "" || u.Path == "/" {
			return invalidf("server %q: oauth client_metadata_url %q must be an https URL with a path; fix it or remove it", s.Name, o.ClientMetadataURL)
		}
	}
	return nil
}

// ValidEnvName reports whether name looks like an environment variable
// name (letters, digits and underscores, not starting with a digit).
func ValidEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// GatewayAuth is [gateway.auth]: the authorization server whose JWT access
// tokens weft's HTTP face accepts.
type GatewayAuth struct {
	Issuer string `toml:"issuer"`
	// Audience is the resource tokens must be issued for (default: the
	// face's URL, http://LISTEN/mcp).
	Audience string `toml:"audience,omitempty"`
	// JWKSURL is where the signing keys are (default: from the issuer's
	// RFC 8414 metadata, else its OpenID configuration).
	JWKSURL        string   `toml:"jwks_url,omitempty"`
	RequiredScopes []string `toml:"required_scopes,omitempty"`
	// ClockSkew is the tolerance on exp and nbf (default 60s).
	ClockSkew Duration `toml:"clock_skew,omitempty"`
	// UserClaim names the claim that identifies the user, for per-user
	// servers (default "sub").
	UserClaim string `toml:"user_claim,omitempty"`
	// AgentClaim names the token claim whose value selects the agent a
	// request acts as (client_id, azp, sub or any other), or "scope" for
	// the token's scopes; Agents maps those values to agents
	// (authagents.go).
	AgentClaim string            `toml:"agent_claim,omitempty"`
	Agents     map[string]string `toml:"agents,omitempty"`
}

func (a *GatewayAuth) validate(path string) error {
	if a == nil {
		return nil
	}
	for key, v := range map[string]string{"issuer": a.Issuer, "audience": a.Audience, "jwks_url": a.JWKSURL} {
		if v == "" && key != "issuer" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return invalidf("%s: gateway.auth.%s %q is not an http(s) URL; fix it", path, key, v)
		}
	}
	if a.ClockSkew < 0 {
		return invalidf("%s: gateway.auth.clock_skew is negative; use a duration such as \"60s\"", path)
	}
	return a.validateAgentClaim(path)
}
