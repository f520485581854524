package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// RedactedValue replaces secret values (env and header values) wherever a
// server is shown.
const RedactedValue = "***"

// Transport returns the server's effective transport: its explicit type if
// set, otherwise http for an http:// or https:// target and stdio for
// anything else.
func (s *Server) Transport() string {
	if s.Type != "" {
		return s.Type
	}
	return inferType(s.Target)
}

// inferType applies the inference rule to a target.
func inferType(target string) string {
	t := strings.ToLower(strings.TrimSpace(target))
	if strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://") {
		return TransportHTTP
	}
	return TransportStdio
}

// IsEnabled reports whether the server should be started; a server is enabled
// unless its entry says enabled = false.
func (s *Server) IsEnabled() bool {
	return s.Enabled == nil || *s.Enabled
}

// Namespace returns what the server's items are exposed under: its prefix if
// one is set (an empty prefix means no namespace), otherwise its name.
func (s *Server) Namespace() string {
	if s.Prefix != nil {
		return *s.Prefix
	}
	return s.Name
}

// Timeout returns the per-request timeout, DefaultTimeoutMS when unset.
func (s *Server) Timeout() time.Duration {
	ms := s.TimeoutMS
	if ms <= 0 {
		ms = DefaultTimeoutMS
	}
	return time.Duration(ms) * time.Millisecond
}

// ExpandedEnv returns the server's env with ${VAR} (and ${VAR:-default}) in
// each value replaced through getenv. Call it at connect time.
func (s *Server) ExpandedEnv(getenv func(string) string) map[string]string {
	return expandMap(s.Env, getenv)
}

// ExpandedHeaders returns the server's headers with ${VAR} (and
// ${VAR:-default}) in each value replaced through getenv.
func (s *Server) ExpandedHeaders(getenv func(string) string) map[string]string {
	return expandMap(s.Headers, getenv)
}

func expandMap(m map[string]string, getenv func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = Expand(v, getenv)
	}
	return out
}

// Expand replaces every ${VAR} in v with getenv("VAR"), and every
// ${VAR:-default} with getenv("VAR") or, when that is empty, default. Anything
// else, including a bare $VAR or an unterminated ${, is kept as written.
func Expand(v string, getenv func(string) string) string {
	if !strings.Contains(v, "${") {
		return v
	}
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.IndexByte(v[i+2:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		expr := v[i+2 : i+2+j]
		name, def, hasDef := strings.Cut(expr, ":-")
		val := ""
		if getenv != nil && name != "" {
			val = getenv(name)
		}
		if val == "" && hasDef {
			val = def
		}
		b.WriteString(val)
		v = v[i+3+j:]
	}
}

// Clone returns a deep copy of the server.
func (s *Server) Clone() *Server {
	if s == nil {
		return nil
	}
	c := *s
	c.Args = slices.Clone(s.Args)
	c.Env = maps.Clone(s.Env)
	c.Headers = maps.Clone(s.Headers)
	c.AllowedTools = slices.Clone(s.AllowedTools)
	c.DeniedTools = slices.Clone(s.DeniedTools)
	if s.Enabled != nil {
		e := *s.Enabled
		c.Enabled = &e
	}
	if s.Prefix != nil {
		p := *s.Prefix
		c.Prefix = &p
	}
	c.OAuth = s.OAuth.clone()
	return &c
}

// Redacted returns a copy safe to show or log: every env and header value is
// replaced by "***", and a password in a URL target is masked.
func (s *Server) Redacted() *Server {
	c := s.Clone()
	if c == nil {
		return nil
	}
	for k := range c.Env {
		c.Env[k] = RedactedValue
	}
	for k := range c.Headers {
		c.Headers[k] = RedactedValue
	}
	c.Target = s.RedactedTarget()
	return c
}

// RedactedTarget returns the target with a URL password masked, as
// Redacted does, without copying the rest of the entry (the admin status
// asks for it once per server on every poll).
func (s *Server) RedactedTarget() string {
	if !strings.Contains(s.Target, "@") {
		return s.Target // no userinfo to mask
	}
	if u, err := url.Parse(s.Target); err == nil && u.User != nil && u.Host != "" {
		u.User = url.User(RedactedValue)
		return u.String()
	}
	return s.Target
}

// Fingerprint returns a stable hash of every connection-relevant field
// (target, args, env, cwd, transport, headers, timeout, protocol version,
// inherit_env, prefix, tool filters). Two entries with the same fingerprint
// can share one running connection, so a hot reload leaves them alone.
func (s *Server) Fingerprint() string {
	type fp struct {
		Target          string            `json:"t"`
		Args            []string          `json:"a"`
		Env             map[string]string `json:"e"`
		Cwd             string            `json:"c"`
		Type            string            `json:"ty"`
		Headers         map[string]string `json:"h"`
		TimeoutMS       int64             `json:"to"`
		ProtocolVersion string            `json:"pv"`
		InheritEnv      bool              `json:"ie"`
		Prefix          *string           `json:"p"`
		Allowed         []string          `json:"al"`
		Denied          []string          `json:"de"`
		MaxConcurrent   int               `json:"mc,omitempty"`
		Failures        int               `json:"ft,omitempty"`
		Reset           Duration          `json:"rt,omitempty"`
		OAuth           *OAuth            `json:"oa,omitempty"`
	}
	b, _ := json.Marshal(fp{
		Target:          s.Target,
		Args:            emptyNil(s.Args),
		Env:             emptyNilMap(s.Env),
		Cwd:             s.Cwd,
		Type:            s.Transport(),
		Headers:         emptyNilMap(s.Headers),
		TimeoutMS:       s.Timeout().Milliseconds(),
		ProtocolVersion: s.ProtocolVersion,
		InheritEnv:      s.InheritEnv,
		Prefix:          s.Prefix,
		Allowed:         emptyNil(s.AllowedTools),
		Denied:          emptyNil(s.DeniedTools),
		MaxConcurrent:   s.MaxConcurrentCalls,
		Failures:        s.FailureThreshold,
		Reset:           s.ResetTimeout,
		OAuth:           s.OAuth,
	})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func emptyNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func emptyNilMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// Names returns the configured server names, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
