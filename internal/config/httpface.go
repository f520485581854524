package config

import "time"

// Defaults of the HTTP face's own limits ([gateway]).
const (
	// DefaultMaxConnections bounds open client connections; past it a
	// silent or idle connection is closed to make room. It is well above
	// what busy clients hold (one per call in flight) and well below the
	// file descriptors a process gets.
	DefaultMaxConnections = 2048
	// DefaultIdleTimeout closes a keep-alive connection with no request.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultBodyTimeout bounds the read of one request body.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultMaxSessions bounds Streamable HTTP sessions; past it the oldest
	// idle session is closed to make room.
	DefaultMaxSessions = 1000
	// DefaultSessionIdleTimeout closes a session nobody used for this long.
	DefaultSessionIdleTimeout = 10 * time.Minute
)

// applyHTTPFace copies the HTTP face's limits of [gateway] over the
// defaults; zero keeps a default.
func applyHTTPFace(cfg *Config, g Gateway, path string) error {
	for _, v := range []struct {
		key string
		n   int
		dst *int
	}{
		{"max_connections", g.MaxConnections, &cfg.Gateway.MaxConnections},
		{"max_sessions", g.MaxSessions, &cfg.Gateway.MaxSessions},
	} {
		if v.n < 0 {
			return invalidf("%s: gateway.%s is %d; use a positive number (0 means the default)", path, v.key, v.n)
		}
		if v.n > 0 {
			*v.dst = v.n
		}
	}
	for _, v := range []struct {
		key string
		d   Duration
		dst *Duration
	}{
		{"idle_timeout", g.IdleTimeout, &cfg.Gateway.IdleTimeout},
		{"body_timeout", g.BodyTimeout, &cfg.Gateway.BodyTimeout},
		{"session_idle_timeout", g.SessionIdleTimeout, &cfg.Gateway.SessionIdleTimeout},
	} {
		if v.d < 0 {
			return invalidf("%s: gateway.%s is %v; use a positive duration such as \"30s\" (0 means the default)", path, v.key, v.d.Std())
		}
		if v.d > 0 {
			*v.dst = v.d
		}
	}
	return nil
}
