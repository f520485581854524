package ui

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// recentCalls is how many finished calls the live page shows; latencies
// keeps that many durations per server for p50/p99.
const (
	recentCalls = 100
	latencies   = 256
)

// CallView is a call as the dashboard shows it.
type CallView struct {
	ID         uint64      `json:"id"`
	Tool       string      `json:"tool"`
	Server     string      `json:"server"`
	Face       string      `json:"face,omitempty"`
	Session    string      `json:"session,omitempty"`
	Client     string      `json:"client,omitempty"`
	Agent      string      `json:"agent,omitempty"`
	Start      time.Time   `json:"start"`
	DurationMS float64     `json:"duration_ms,omitempty"`
	Outcome    hub.Outcome `json:"outcome,omitempty"`
	Error      string      `json:"error,omitempty"`
}

// serverStats is what the live view counts per server.
type serverStats struct {
	durations  []time.Duration // a ring of the last calls' durations
	next       int
	calls      int
	errors     int
	lastErr    string
	reconnects int
}

// Live watches the hub for the dashboard: it implements hub.Observer,
// keeps recent calls and per-server statistics, and pushes events to the
// pages connected over SSE.
type Live struct {
	redact func(string) string

	mu     sync.Mutex
	stats  map[string]*serverStats
	recent callRing
	active map[uint64]startedView
	subs   map[chan event]bool

	version atomic.Uint64 // bumped on every change the servers page shows

	spent costs // by agent, for the agents page (agents.go)

	done      chan struct{} // closed by Close: event streams end
	closeOnce sync.Once
}

// event is one SSE message.
type event struct {
	name string
	data []byte
}

// NewLive returns an empty Live; redact masks secrets in error text (nil:
// none known).
func NewLive(redact func(string) string) *Live {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	return &Live{redact: redact, stats: map[string]*serverStats{}, active: map[uint64]startedView{}, subs: map[chan event]bool{},
		done: make(chan struct{})}
}

// Close ends every event stream, so that the HTTP server can shut down
// without waiting for pages that never hang up.
func (l *Live) Close() { l.closeOnce.Do(func() { close(l.done) }) }

func viewOf(c *hub.Call) CallView {
	return CallView{ID: c.ID, Tool: c.Tool, Server: c.Server, Face: c.Caller.Face, Session: c.Caller.Session,
		Client: c.Caller.Client, Agent: c.Caller.Agent, Start: c.Start}
}

// startedView is a call in flight as Live keeps it: the fields of its
// CallView known at its start. At 128 bytes it is held in the map's own
// slots; a whole CallView is over the map's limit for that, and each call
// would allocate one apart (BenchmarkLiveCall shows it).
type startedView struct {
	ID                                         uint64
	Tool, Server, Face, Session, Client, Agent string
	Start                                      time.Time
}

func startedOf(v CallView) startedView {
	return startedView{ID: v.ID, Tool: v.Tool, Server: v.Server, Face: v.Face, Session: v.Session,
		Client: v.Client, Agent: v.Agent, Start: v.Start}
}

func (s startedView) view() CallView {
	return CallView{ID: s.ID, Tool: s.Tool, Server: s.Server, Face: s.Face, Session: s.Session,
		Client: s.Client, Agent: s.Agent, Start: s.Start}
}

// CallStarted implements hub.Observer.
func (l *Live) CallStarted(ctx context.Context, c *hub.Call) context.Context {
	v := viewOf(c)
	l.mu.Lock()
	l.active[c.ID] = startedOf(v)
	watched := len(l.subs) > 0
	l.mu.Unlock()
	if watched { // v is boxed for publish only then: no allocation per call otherwise
		l.publish("call", v)
	}
	return ctx
}

// CallEnded implements hub.Observer.
func (l *Live) CallEnded(_ context.Context, c *hub.Call) {
	v := viewOf(c)
	v.DurationMS, v.Outcome = float64(c.Duration.Microseconds())/1000, c.Outcome
	if c.Err != nil {
		v.Error = l.redact(c.Err.Error())
	}
	l.mu.Lock()
	delete(l.active, c.ID)
	l.recent.add(v)
	if c.Server != "" {
		st := l.statsLocked(c.Server)
		st.calls++
		if len(st.durations) < latencies {
			st.durations = append(st.durations, c.Duration)
		} else {
			st.durations[st.next] = c.Duration
			st.next = (st.next + 1) % latencies
		}
		if c.Outcome != hub.OutcomeOK {
			st.errors++
			st.lastErr = v.Error
			if st.lastErr == "" {
				st.lastErr = string(c.Outcome)
			}
		}
	}
	watched := len(l.subs) > 0
	l.mu.Unlock()
	l.version.Add(1)
	if watched {
		l.publish("call", v)
	}
}

// ServerChanged implements hub.Observer.
func (l *Live) ServerChanged(ev hub.ServerEvent) {
	if ev.Reconnected {
		l.mu.Lock()
		l.statsLocked(ev.Name).reconnects++
		l.mu.Unlock()
	}
	l.version.Add(1)
	l.publish("server", ev)
}

// PlanStep tells the pages that a step of plan id changed state.
func (l *Live) PlanStep(id string, step int, state string) {
	l.publish("plan", map[string]any{"plan": id, "step": step, "state": state})
}

func (l *Live) statsLocked(server string) *serverStats {
	st := l.stats[server]
	if st == nil {
		st = &serverStats{}
		l.stats[server] = st
	}
	return st
}

// subscribe registers a page for events; cancel unregisters it.
func (l *Live) subscribe() (<-chan event, func()) {
	ch := make(chan event, 64)
	l.mu.Lock()
	l.subs[ch] = true
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.subs, ch)
		l.mu.Unlock()
	}
}

// publish sends an event to every page; a page that cannot keep up loses
// events rather than slowing calls down (it resyncs from the snapshot).
func (l *Live) publish(name string, v any) {
	l.mu.Lock()
	watched := len(l.subs) > 0
	l.mu.Unlock()
	if !watched {
		return // nobody has the dashboard open: no encoding on the call path
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- event{name, data}:
		default:
		}
	}
}

// calls returns the calls in flight (oldest first) and the recent ones
// (newest first).
func (l *Live) calls() (active, recent []CallView) {
	l.mu.Lock()
	defer l.mu.Unlock()
	active = []CallView{} // never null in JSON: the page maps over it
	for _, v := range l.active {
		active = append(active, v.view())
	}
	slices.SortFunc(active, func(a, b CallView) int { return int(a.ID) - int(b.ID) })
	return active, l.recent.newestFirst()
}

// StatsView is a server's call statistics.
type StatsView struct {
	Calls      int     `json:"calls"`
	Errors     int     `json:"errors"`
	P50MS      float64 `json:"p50_ms"`
	P99MS      float64 `json:"p99_ms"`
	LastError  string  `json:"last_call_error,omitempty"`
	Reconnects int     `json:"reconnects"`
}

func (l *Live) statsOf(server string) StatsView {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.stats[server]
	if st == nil {
		return StatsView{}
	}
	d := slices.Clone(st.durations)
	slices.Sort(d)
	return StatsView{Calls: st.calls, Errors: st.errors, P50MS: quantile(d, 0.50), P99MS: quantile(d, 0.99),
		LastError: st.lastErr, Reconnects: st.reconnects}
}

// quantile of sorted durations, in milliseconds (nearest rank).
func quantile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i].Microseconds()) / 1000
}
