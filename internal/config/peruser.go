package config

import (
	"fmt"
	"strings"
	"time"
)

// DefaultUserIdleTimeout stops a per-user instance nobody called for this
// long.
const DefaultUserIdleTimeout = 15 * time.Minute

// IsPerUser reports whether each signed-in user of weft's face gets their
// own instance of the server: per_user on a stdio server, oauth.per_user on
// a remote one.
func (s *Server) IsPerUser() bool {
	return s.PerUser || (s.OAuth != nil && s.OAuth.PerUser)
}

// UserIdleTimeout is how long a per-user instance may sit unused.
func (s *Server) UserIdleTimeout() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout.Std()
	}
	return DefaultUserIdleTimeout
}

// validatePerUser checks per_user against the transport and the grant (a
// negative idle_timeout is refused when it is decoded).
func (s *Server) validatePerUser(typ string) error {
	if s.PerUser && typ != TransportStdio {
		return invalidf("server %q: per_user applies to stdio servers; a remote server keeps one login per user with per_user = true in its oauth table", s.Name)
	}
	if s.OAuth != nil && s.OAuth.PerUser {
		if s.OAuth.EffectiveGrant() != GrantAuthorizationCode {
			return invalidf("server %q: oauth per_user needs the authorization_code grant (each user logs in); remove per_user or the grant", s.Name)
		}
		for k := range s.Headers {
			if strings.EqualFold(k, "Authorization") {
				return invalidf("server %q: oauth per_user and an Authorization header exclude each other; remove the header", s.Name)
			}
		}
	}
	return nil
}

// perUserWarnings names per-user servers that cannot tell users apart
// because weft's face verifies no user tokens.
func (c *Config) perUserWarnings() []string {
	if c.Gateway.Auth != nil {
		return nil
	}
	var out []string
	for _, name := range c.Names() {
		if c.Servers[name].IsPerUser() {
			out = append(out, fmt.Sprintf("server %q is per_user, but [gateway.auth] is not set: weft cannot tell users apart, so every call uses the shared instance", name))
		}
	}
	return out
}
