package config

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "abc", "EMPTY": "", "HOME": "/h"}
	getenv := func(k string) string { return env[k] }
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"${TOKEN}", "abc"},
		{"Bearer ${TOKEN}", "Bearer abc"},
		{"${HOME}/x/${TOKEN}", "/h/x/abc"},
		{"${MISSING}", ""},
		{"${MISSING:-dflt}", "dflt"},
		{"${EMPTY:-dflt}", "dflt"},
		{"${TOKEN:-dflt}", "abc"},
		{"$TOKEN", "$TOKEN"},
		{"${TOKEN", "${TOKEN"},
		{"a${}b", "ab"},
		{"$${TOKEN}", "$abc"},
	}
	for _, tt := range tests {
		if got := Expand(tt.in, getenv); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	s := &Server{Env: map[string]string{"API_KEY": "${TOKEN}", "FIXED": "1"}, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	if got := s.ExpandedEnv(getenv); !reflect.DeepEqual(got, map[string]string{"API_KEY": "abc", "FIXED": "1"}) {
		t.Errorf("ExpandedEnv = %v", got)
	}
	if got := s.ExpandedHeaders(getenv); got["Authorization"] != "Bearer abc" {
		t.Errorf("ExpandedHeaders = %v", got)
	}
	if s.Env["API_KEY"] != "${TOKEN}" {
		t.Error("ExpandedEnv changed the server")
	}
	if (&Server{}).ExpandedEnv(getenv) != nil {
		t.Error("nil env should stay nil")
	}
}

func TestRedacted(t *testing.T) {
	s := &Server{
		Name: "x", Target: "https://user:secret@example.com/mcp",
		Env:     map[string]string{"API_KEY": "sk-123", "OTHER": "${X}"},
		Headers: map[string]string{"Authorization": "Bearer sk-456"},
	}
	r := s.Redacted()
	if r.Env["API_KEY"] != "***" || r.Env["OTHER"] != "***" || r.Headers["Authorization"] != "***" {
		t.Errorf("redacted = %+v", r)
	}
	if strings.Contains(r.Target, "secret") || !strings.Contains(r.Target, "example.com") {
		t.Errorf("target = %q", r.Target)
	}
	if s.Env["API_KEY"] != "sk-123" || s.Headers["Authorization"] != "Bearer sk-456" || !strings.Contains(s.Target, "secret") {
		t.Error("Redacted changed the original")
	}
	if got := (&Server{Target: "npx"}).Redacted(); got.Env != nil || got.Target != "npx" {
		t.Errorf("plain = %+v", got)
	}
}

// TestRedactedTargetMasksAsURLParse: the cheap mask (no parse without an
// '@') gives what parsing every target gave, with and without a password,
// an '@' or a URL.
func TestRedactedTargetMasksAsURLParse(t *testing.T) {
	parsed := func(target string) string {
		if u, err := url.Parse(target); err == nil && u.User != nil && u.Host != "" {
			u.User = url.User(RedactedValue)
			return u.String()
		}
		return target
	}
	for _, target := range []string{
		"npx", "/usr/bin/server", "@scope/pkg", "https://example.com/mcp",
		"https://user:secret@example.com/mcp", "https://user@example.com/mcp",
		"https://example.com/a@b", "user:pw@host", "http://[::1]:80/x@y", "%zz@host",
	} {
		s := &Server{Target: target}
		if got, want := s.RedactedTarget(), parsed(target); got != want {
			t.Errorf("RedactedTarget(%q) = %q, want %q", target, got, want)
		}
		if got := s.Redacted().Target; got != s.RedactedTarget() {
			t.Errorf("Redacted().Target = %q, RedactedTarget = %q", got, s.RedactedTarget())
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	s := &Server{Name: "x", Args: []string{"a"}, Env: map[string]string{"K": "v"}, Headers: map[string]string{"H": "v"},
		Enabled: ptr(true), Prefix: ptr("p"), AllowedTools: []string{"a*"}, DeniedTools: []string{"b*"}}
	c := s.Clone()
	if !reflect.DeepEqual(s, c) {
		t.Fatalf("clone differs: %+v", c)
	}
	c.Args[0], c.Env["K"], c.Headers["H"], *c.Enabled, *c.Prefix = "z", "z", "z", false, "z"
	c.AllowedTools[0], c.DeniedTools[0] = "z", "z"
	if s.Args[0] != "a" || s.Env["K"] != "v" || s.Headers["H"] != "v" || !*s.Enabled || *s.Prefix != "p" ||
		s.AllowedTools[0] != "a*" || s.DeniedTools[0] != "b*" {
		t.Errorf("clone shares memory: %+v", s)
	}
}

func TestFingerprint(t *testing.T) {
	base := &Server{Name: "x", Target: "npx", Args: []string{"-y", "a"}, Env: map[string]string{"A": "1", "B": "2"}}
	same := &Server{Name: "y", Target: "npx", Args: []string{"-y", "a"}, Env: map[string]string{"B": "2", "A": "1"},
		Type: TransportStdio, TimeoutMS: DefaultTimeoutMS, Enabled: ptr(false), Source: "elsewhere"}
	if base.Fingerprint() != same.Fingerprint() {
		t.Error("equivalent servers have different fingerprints")
	}
	if base.Fingerprint() != base.Clone().Fingerprint() {
		t.Error("fingerprint is not stable")
	}
	changes := []func(*Server){
		func(s *Server) { s.Target = "uvx" },
		func(s *Server) { s.Args = []string{"-y", "b"} },
		func(s *Server) { s.Env = map[string]string{"A": "1"} },
		func(s *Server) { s.Cwd = "/tmp" },
		func(s *Server) { s.Type = TransportSSE },
		func(s *Server) { s.Headers = map[string]string{"H": "v"} },
		func(s *Server) { s.TimeoutMS = 5 },
		func(s *Server) { s.ProtocolVersion = "2025-06-18" },
		func(s *Server) { s.InheritEnv = true },
		func(s *Server) { s.Prefix = ptr("") },
		func(s *Server) { s.AllowedTools = []string{"a"} },
		func(s *Server) { s.DeniedTools = []string{"a"} },
	}
	for i, change := range changes {
		c := base.Clone()
		change(c)
		if c.Fingerprint() == base.Fingerprint() {
			t.Errorf("change %d does not change the fingerprint", i)
		}
	}
}

func TestServerAccessors(t *testing.T) {
	s := &Server{Name: "files"}
	if !s.IsEnabled() || s.Namespace() != "files" || s.Timeout() != 30*time.Second {
		t.Errorf("defaults: enabled %v ns %q timeout %v", s.IsEnabled(), s.Namespace(), s.Timeout())
	}
	s.Enabled, s.Prefix, s.TimeoutMS = ptr(false), ptr("fs"), 1500
	if s.IsEnabled() || s.Namespace() != "fs" || s.Timeout() != 1500*time.Millisecond {
		t.Errorf("set: enabled %v ns %q timeout %v", s.IsEnabled(), s.Namespace(), s.Timeout())
	}
	s.Prefix = ptr("")
	if s.Namespace() != "" {
		t.Errorf("empty prefix: ns %q", s.Namespace())
	}
	c := &Config{Servers: map[string]*Server{"b": {}, "a": {}}}
	if got := c.Names(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Names = %v", got)
	}
}
