package delegate

import (
	"sync"
	"time"
)

// breaker opens after threshold consecutive failures and lets one trial
// through once reset has passed (the same rule as the hub's breaker, applied to delegations).
type breaker struct {
	threshold int
	reset     time.Duration
	now       func() time.Time

	mu       sync.Mutex
	failures int
	openedAt time.Time
	trial    bool // a half-open trial is running
}

func newBreaker(threshold int, reset time.Duration) *breaker {
	return &breaker{threshold: threshold, reset: reset, now: time.Now}
}

// allow reports whether a delegation may start.
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.threshold <= 0 || b.failures < b.threshold {
		return true
	}
	if b.trial || b.now().Sub(b.openedAt) < b.reset {
		return false
	}
	b.trial = true
	return true
}

// done records an outcome; a cancelled delegation says nothing about the
// delegate and only ends a trial.
func (b *breaker) done(ok, counts bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.trial = false
	switch {
	case !counts:
	case ok:
		b.failures = 0
	default:
		b.failures++
		if b.failures >= b.threshold {
			b.openedAt = b.now()
		}
	}
}
