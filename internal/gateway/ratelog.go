package gateway

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// quietNotices rate-limits the SDK's per-session log lines that a single
// event multiplies: one failed list_changed per idle session on each
// catalog change, one error per request that lacks its session id. At most
// one such line per interval passes, carrying how many were dropped.
type quietNotices struct {
	slog.Handler
	state *quietState
}

type quietState struct {
	every time.Duration
	mu    sync.Mutex
	next  time.Time // guarded by mu
	drops int       // guarded by mu
}

// noisyPrefixes start the messages rate-limited.
var noisyPrefixes = []string{"calling notifications/", "failed to connect", "stdio client message refused", "method invalid during initialization"}

func newQuietLogger(l *slog.Logger, every time.Duration) *slog.Logger {
	return slog.New(&quietNotices{Handler: l.Handler(), state: &quietState{every: every}})
}

func (q *quietNotices) Handle(ctx context.Context, r slog.Record) error {
	if !noisy(r.Message) {
		return q.Handler.Handle(ctx, r)
	}
	s := q.state
	s.mu.Lock()
	now := time.Now()
	if now.Before(s.next) {
		s.drops++
		s.mu.Unlock()
		return nil
	}
	drops := s.drops
	s.next, s.drops = now.Add(s.every), 0
	s.mu.Unlock()
	if drops > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("similar_lines_dropped", drops))
	}
	return q.Handler.Handle(ctx, r)
}

func noisy(msg string) bool {
	for _, p := range noisyPrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// WithAttrs and WithGroup keep the rate limit shared.
func (q *quietNotices) WithAttrs(as []slog.Attr) slog.Handler {
	return &quietNotices{Handler: q.Handler.WithAttrs(as), state: q.state}
}

func (q *quietNotices) WithGroup(name string) slog.Handler {
	return &quietNotices{Handler: q.Handler.WithGroup(name), state: q.state}
}
