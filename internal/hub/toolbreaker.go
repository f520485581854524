package hub

import (
	"context"
	"errors"
	"sync"
	"time"
)

// toolBreakers are a server's per-tool breakers for timeouts. A tool that
// keeps timing out (one slow tool, or one client asking too much of it) opens
// its own breaker; the server's breaker, which every other tool and client
// shares, counts only failures that say the server itself is unwell
// (transport and protocol errors). A server that hangs altogether is caught
// by the keepalive pings.
type toolBreakers struct {
	server    string
	threshold int
	reset     time.Duration
	now       func() time.Time

	mu sync.Mutex
	m  map[string]*breaker
}

func newToolBreakers(server string, threshold int, reset time.Duration, now func() time.Time) *toolBreakers {
	return &toolBreakers{server: server, threshold: threshold, reset: reset, now: now, m: map[string]*breaker{}}
}

// get returns tool's breaker, creating it on first use.
func (t *toolBreakers) get(tool string) *breaker {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.m[tool]
	if !ok {
		b = newBreaker(t.server, t.threshold, t.reset, t.now)
		b.tool = tool
		t.m[tool] = b
	}
	return b
}

// verdict is one admitted call's standing with its breakers.
type verdict struct {
	server        *breaker
	tool          *breaker // nil unless the call is a tool call
	probe, tprobe bool
}

// admit asks the server's breaker and then the tool's (if any).
func admit(server, tool *breaker) (verdict, error) {
	v := verdict{server: server, tool: tool}
	var err error
	if v.probe, err = server.allow(); err != nil {
		return v, err
	}
	if tool != nil {
		if v.tprobe, err = tool.allow(); err != nil {
			server.record(v.probe, outcomeIgnored)
			return v, err
		}
	}
	return v, nil
}

// record applies a call's outcome: a tool call's timeout counts against the
// tool alone; everything else against the server, the tool only learning of
// successes.
func (v verdict) record(o outcome, err error) {
	if v.tool == nil {
		v.server.record(v.probe, o)
		return
	}
	if o == outcomeFailure && errors.Is(err, context.DeadlineExceeded) {
		v.server.record(v.probe, outcomeIgnored)
		v.tool.record(v.tprobe, outcomeFailure)
		return
	}
	v.server.record(v.probe, o)
	if o != outcomeSuccess {
		o = outcomeIgnored
	}
	v.tool.record(v.tprobe, o)
}
