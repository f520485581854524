// Package metrics exposes what weft does in the Prometheus text format:
// tool calls by server, tool and outcome, their durations (weft's share and
// the upstream's apart), upstream status and breakers, catalog sizes,
// sessions, reloads, plan steps and agent cost. It watches the hub through
// hub.Observer and reads the rest at scrape time.
package metrics

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/weft-dev/weft/internal/hub"
)

// DefaultMaxToolLabels is how many distinct tool names get a label of
// their own before the rest are counted as "other".
const DefaultMaxToolLabels = 100

// OtherTool is the tool label of calls beyond the label limit.
const OtherTool = "other"

// Source is what metrics read at scrape time; *hub.Hub is one.
type Source interface {
	List() []hub.ServerStatus
	Catalog() *hub.Catalog
}

// Options configure the metrics.
type Options struct {
	// Hub is read at each scrape for status, breakers, in-flight calls and
	// catalog sizes.
	Hub Source
	// MaxToolLabels bounds the tool label's values (0: the default; -1: no
	// tool label at all), so that 10 000 tools cannot explode the series.
	MaxToolLabels int
	// Sessions, when set, counts the connected client sessions by face
	// and agent.
	Sessions func() map[SessionKey]int
	// UserInstances, when set, counts the live per-user instances by
	// server (no user label, so that the series stay bounded).
	UserInstances func() map[string]int
}

// DefaultAgent is the agent label of sessions and cost of no named agent.
const DefaultAgent = "default"

// SessionKey is what client sessions are counted by: the face ("http",
// "stdio") and the agent they are connected as (a configured agent's
// name, or DefaultAgent), so the label values stay bounded.
type SessionKey struct {
	Face, Agent string
}

// Metrics holds weft's collectors; it implements hub.Observer.
type Metrics struct {
	reg        *prometheus.Registry
	maxTools   int
	calls      *prometheus.CounterVec
	total      *prometheus.HistogramVec
	added      *prometheus.HistogramVec
	upstream   *prometheus.HistogramVec
	reconnects *prometheus.CounterVec
	reloads    *prometheus.CounterVec
	reloadDur  prometheus.Histogram
	planRuns   *prometheus.CounterVec
	planSteps  *prometheus.CounterVec
	cost       *prometheus.CounterVec

	mu    sync.Mutex
	tools map[string]bool // tool names that have a label of their own
	// The series a call ends in, looked up once per label set rather than
	// hashed and found per call (1.5 µs per call at one call in flight).
	// No series is ever deleted, so a kept one stays the registry's.
	callSeries   map[callKey]prometheus.Counter
	serverSeries map[string]serverSeries
	// last is where the last call ended: at one call in flight, or while
	// one tool is called over and over, the next call ends there too and
	// finds its series without the lock and the three map lookups.
	last atomic.Pointer[lastSeries]
}

// lastSeries is a call's label set (the tool's own name, before the label
// limit maps it) and the series it ended in.
type lastSeries struct {
	key   callKey
	calls prometheus.Counter
	hist  serverSeries
}

// callKey is a weft_tool_calls_total label set.
type callKey struct{ server, tool, outcome string }

// serverSeries are one server's duration histograms.
type serverSeries struct{ total, added, upstream prometheus.Observer }

// New registers weft's metrics, plus the Go runtime and process ones.
func New(opts Options) *Metrics {
	if opts.MaxToolLabels == 0 {
		opts.MaxToolLabels = DefaultMaxToolLabels
	}
	buckets := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	m := &Metrics{
		reg: prometheus.NewRegistry(), maxTools: opts.MaxToolLabels, tools: map[string]bool{},
		callSeries: map[callKey]prometheus.Counter{}, serverSeries: map[string]serverSeries{},
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_tool_calls_total",
			Help: "Tool calls by server, tool and outcome (ok, tool_error, timeout, breaker_open, limit, cancelled, unavailable, error)."},
			[]string{"server", "tool", "outcome"}),
		total: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "weft_tool_call_duration_seconds",
			Help: "Whole duration of tool calls as weft saw them.", Buckets: buckets}, []string{"server"}),
		added: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "weft_tool_call_added_seconds",
			Help: "Time weft added to tool calls (routing, limits, breaker), the upstream's share left out.", Buckets: buckets}, []string{"server"}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "weft_upstream_call_duration_seconds",
			Help: "Time upstream servers took to answer tool calls.", Buckets: buckets}, []string{"server"}),
		reconnects: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_upstream_reconnects_total",
			Help: "Times an upstream became active again after losing its connection."}, []string{"server"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_config_reloads_total",
			Help: "Config reloads by result (ok, error)."}, []string{"result"}),
		reloadDur: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "weft_config_reload_duration_seconds",
			Help: "How long applying a changed config took.", Buckets: prometheus.ExponentialBuckets(.001, 4, 10)}),
		planRuns: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_plan_runs_total",
			Help: "Plan runs by outcome (ok, failed)."}, []string{"outcome"}),
		planSteps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_plan_steps_total",
			Help: "Plan step events by outcome (done, failed, retry, skipped)."}, []string{"outcome"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "weft_agent_cost_usd_total",
			Help: "Estimated model cost of agents and delegations, in US dollars."}, []string{"agent"}),
	}
	m.reg.MustRegister(m.calls, m.total, m.added, m.upstream, m.reconnects, m.reloads, m.reloadDur,
		m.planRuns, m.planSteps, m.cost,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if opts.Hub != nil || opts.Sessions != nil || opts.UserInstances != nil {
		m.reg.MustRegister(&stateCollector{hub: opts.Hub, sessions: opts.Sessions, userInstances: opts.UserInstances})
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Registry is where the metrics live, for tests and extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// CallStarted implements hub.Observer; metrics only count ends.
func (m *Metrics) CallStarted(ctx context.Context, _ *hub.Call) context.Context { return ctx }

// CallEnded implements hub.Observer.
func (m *Metrics) CallEnded(_ context.Context, c *hub.Call) {
	server := c.Server
	if server == "" {
		server = "none"
	}
	calls, hist := m.seriesOf(server, c.Tool, string(c.Outcome), c.Upstream > 0)
	calls.Inc()
	hist.total.Observe(c.Duration.Seconds())
	hist.added.Observe(max(c.Duration-c.Upstream, 0).Seconds())
	if c.Upstream > 0 {
		hist.upstream.Observe(c.Upstream.Seconds())
	}
}

// seriesOf is series, found first among the last call's.
func (m *Metrics) seriesOf(server, tool, outcome string, upstream bool) (prometheus.Counter, serverSeries) {
	key := callKey{server, tool, outcome}
	if l := m.last.Load(); l != nil && l.key == key && (l.hist.upstream != nil || !upstream) {
		return l.calls, l.hist
	}
	calls, hist := m.series(server, tool, outcome, upstream)
	m.last.Store(&lastSeries{key: key, calls: calls, hist: hist})
	return calls, hist
}

// series returns the call counter and the histograms a call of tool on
// server with outcome ends in; the upstream histogram only once a call
// reached the upstream (a series is exported from its first use).
func (m *Metrics) series(server, tool, outcome string, upstream bool) (prometheus.Counter, serverSeries) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := callKey{server, m.toolLabel(tool), outcome}
	calls, ok := m.callSeries[key]
	if !ok {
		calls = m.calls.WithLabelValues(key.server, key.tool, key.outcome)
		m.callSeries[key] = calls
	}
	hist, ok := m.serverSeries[server]
	if !ok {
		hist = serverSeries{total: m.total.WithLabelValues(server), added: m.added.WithLabelValues(server)}
	}
	if upstream && hist.upstream == nil {
		hist.upstream, ok = m.upstream.WithLabelValues(server), false
	}
	if !ok {
		m.serverSeries[server] = hist
	}
	return calls, hist
}

// ServerChanged implements hub.Observer.
func (m *Metrics) ServerChanged(ev hub.ServerEvent) {
	if ev.Reconnected {
		m.reconnects.WithLabelValues(ev.Name).Inc()
	}
}

// toolLabel returns the tool's own name while fewer than the limit
// have been seen, else OtherTool; m.mu is held.
func (m *Metrics) toolLabel(name string) string {
	if m.maxTools < 0 {
		return ""
	}
	if m.tools[name] {
		return name
	}
	if len(m.tools) >= m.maxTools {
		return OtherTool
	}
	m.tools[name] = true
	return name
}

// Reloaded counts one config reload and how long it took.
func (m *Metrics) Reloaded(d time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.reloads.WithLabelValues(result).Inc()
	m.reloadDur.Observe(d.Seconds())
}

// PlanRun counts one finished plan run.
func (m *Metrics) PlanRun(err error) {
	outcome := "ok"
	if err != nil {
		outcome = "failed"
	}
	m.planRuns.WithLabelValues(outcome).Inc()
}

// PlanStep counts one step event: done, failed, retry or skipped.
func (m *Metrics) PlanStep(outcome string) { m.planSteps.WithLabelValues(outcome).Inc() }

// Cost adds what an agent or a delegation spent.
func (m *Metrics) Cost(agent string, usd float64) {
	if usd > 0 {
		m.cost.WithLabelValues(agent).Add(usd)
	}
}
