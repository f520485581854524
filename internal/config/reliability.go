package config

import (
	"fmt"
	"time"
)

// Reliability defaults.
const (
	DefaultFailureThreshold   = 3
	DefaultResetTimeout       = 5 * time.Minute
	DefaultMaxConcurrentCalls = 256
	DefaultPingInterval       = 30 * time.Second
)

// Duration is a time.Duration written in TOML as a string such as "30s".
type Duration time.Duration

// UnmarshalText parses a Go duration string ("500ms", "30s", "5m").
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration; write it like \"30s\" or \"5m\"", string(b))
	}
	if v < 0 {
		return fmt.Errorf("%q is negative; use a positive duration", string(b))
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Std returns the duration as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// Breaker holds circuit-breaker settings ([breaker] globally; the same keys
// on a server override them for that server).
type Breaker struct {
	FailureThreshold int      `toml:"failure_threshold"`
	ResetTimeout     Duration `toml:"reset_timeout"`
}

// BreakerFor returns the effective breaker settings of s: its own values
// where set, else the global ones.
func (c *Config) BreakerFor(s *Server) Breaker { return c.Breaker.For(s) }

// For returns b with the per-server overrides of s applied.
func (b Breaker) For(s *Server) Breaker {
	if s.FailureThreshold > 0 {
		b.FailureThreshold = s.FailureThreshold
	}
	if s.ResetTimeout > 0 {
		b.ResetTimeout = s.ResetTimeout
	}
	return b
}

// applyReliability copies the reliability keys of a decoded file onto cfg,
// keeping defaults for what the file leaves out.
func applyReliability(cfg *Config, fc *fileConfig, path string) error {
	l, b := fc.Limits, fc.Breaker
	if l.MaxConcurrentCalls < 0 || b.FailureThreshold < 0 {
		return invalidf("%s: limits.max_concurrent_calls and breaker.failure_threshold must be positive (0 means the default)", path)
	}
	if l.MaxConcurrentCalls > 0 {
		cfg.Limits.MaxConcurrentCalls = l.MaxConcurrentCalls
	}
	if l.DrainTimeout > 0 {
		cfg.Limits.DrainTimeout = l.DrainTimeout
	}
	if l.PingInterval > 0 {
		cfg.Limits.PingInterval = l.PingInterval
	}
	if b.FailureThreshold > 0 {
		cfg.Breaker.FailureThreshold = b.FailureThreshold
	}
	if b.ResetTimeout > 0 {
		cfg.Breaker.ResetTimeout = b.ResetTimeout
	}
	for name, s := range fc.Tools.MCPServers {
		if s != nil && (s.MaxConcurrentCalls < 0 || s.FailureThreshold < 0) {
			return invalidf("%s: tools.mcp_servers.%s: max_concurrent_calls and failure_threshold must be positive (0 means the default)", path, name)
		}
	}
	return nil
}
