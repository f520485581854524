package policy

import (
	"context"
	"log/slog"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/weft-dev/weft/internal/config"
)

// minSecretLen keeps short values ("1", "true") from being masked
// everywhere they happen to appear.
const minSecretLen = 6

// Secrets masks known secret values in text: the env and header
// values of every server, URL passwords and the HTTP token. It backs a log
// handler, so that even a child that prints its own environment on stderr
// cannot put a secret into weft's logs. Safe for concurrent use.
type Secrets struct {
	mu     sync.RWMutex
	values []string // longest first, so a secret that contains another is masked whole
}

// Set replaces the known secrets.
func (s *Secrets) Set(values []string) {
	seen := map[string]bool{}
	var out []string
	for _, v := range values {
		for _, part := range append([]string{v}, strings.Fields(v)...) {
			if len(part) >= minSecretLen && !seen[part] {
				seen[part] = true
				out = append(out, part)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	s.mu.Lock()
	s.values = out
	s.mu.Unlock()
}

// Redact returns text with every known secret replaced by "***".
func (s *Secrets) Redact(text string) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, v := range s.values {
		if strings.Contains(text, v) {
			text = strings.ReplaceAll(text, v, config.RedactedValue)
		}
	}
	return text
}

// SecretValues collects the secret values of cfg, with ${VAR} expanded
// through getenv as they are at connect time.
func SecretValues(cfg *config.Config, getenv func(string) string) []string {
	var out []string
	// HubServers adds the agents' own instances, whose env and headers
	// may carry secrets the global entries do not.
	for _, s := range cfg.HubServers() {
		for _, v := range s.ExpandedEnv(getenv) {
			out = append(out, v)
		}
		for _, v := range s.ExpandedHeaders(getenv) {
			out = append(out, v)
		}
		if s.OAuth != nil && s.OAuth.ClientSecretEnv != "" {
			out = append(out, getenv(s.OAuth.ClientSecretEnv))
		}
		if u, err := url.Parse(s.Target); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, url.QueryEscape(p))
			}
		}
	}
	if name := cfg.Security.HTTPTokenEnv; name != "" {
		out = append(out, getenv(name))
	}
	for _, a := range cfg.Agents {
		out = append(out, a.AgentTokenValue(getenv))
	}
	return out
}

// Handler wraps next so that every message and attribute is redacted.
func (s *Secrets) Handler(next slog.Handler) slog.Handler { return &redactHandler{next: next, s: s} }

type redactHandler struct {
	next slog.Handler
	s    *Secrets
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.s.Redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &redactHandler{next: h.next.WithAttrs(red), s: h.s}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{next: h.next.WithGroup(name), s: h.s}
}

// attr redacts one attribute; groups are walked, everything else is
// rendered as text first (errors, Stringers, slices can all hold secrets).
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, ga := range g {
			red[i] = h.attr(ga)
		}
		return slog.Group(a.Key, red...)
	case slog.KindInt64, slog.KindUint64, slog.KindFloat64, slog.KindBool, slog.KindDuration, slog.KindTime:
		return slog.Attr{Key: a.Key, Value: v}
	}
	return slog.String(a.Key, h.s.Redact(v.String()))
}
