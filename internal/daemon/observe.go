package daemon

import (
	"context"
	"os"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/audit"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/metrics"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/tracing"
	"github.com/weft-dev/weft/internal/ui"
	"go.opentelemetry.io/otel/attribute"
)

// MetricsPath is where weft serve exposes Prometheus metrics.
const MetricsPath = "/metrics"

// observability is what watches a running weft: metrics, the audit log,
// traces, and the readiness flag /readyz reads.
type observability struct {
	metrics *metrics.Metrics
	audit   *audit.Log // nil unless [audit] file is set
	applied atomic.Bool
	// requires is [gateway] ready_requires as last loaded.
	requires atomic.Pointer[[]string]
	sources  func() map[metrics.SessionKey]int // sessions by face and agent, set once the faces exist
	// sessionList names the sessions, for the dashboard; set with sources.
	sessionList func() []hub.Caller
	// userInstances counts live per-user instances by server; set once the
	// pool exists.
	userInstances func() map[string]int
	live          *ui.Live // the dashboard's view of calls and servers
	// tracer is nil unless the OTEL_* variables ask for traces.
	metricsOn     bool // [metrics] enabled
	tracer        *tracing.Tracer
	traceShutdown func(context.Context) error
}

// newObservability opens what cfg asks for; the caller closes it. redact
// masks secrets (nil: none known).
func newObservability(ctx context.Context, cfg *config.Config, version string, redact audit.Redactor, src metrics.Source) (*observability, error) {
	tracer, shutdown, err := tracing.Setup(ctx, version, os.Getenv)
	if err != nil {
		return nil, err
	}
	var redactFn func(string) string
	if redact != nil {
		redactFn = redact.Redact
	}
	o := &observability{tracer: tracer, traceShutdown: shutdown, live: ui.NewLive(redactFn), metricsOn: cfg.Metrics.On()}
	o.metrics = metrics.New(metrics.Options{Hub: src, MaxToolLabels: cfg.Metrics.MaxToolLabels,
		Sessions: func() map[metrics.SessionKey]int {
			if o.sources == nil {
				return nil
			}
			return o.sources()
		},
		UserInstances: func() map[string]int {
			if o.userInstances == nil {
				return nil
			}
			return o.userInstances()
		}})
	if cfg.Audit.File != "" {
		l, err := audit.Open(audit.Options{File: cfg.Audit.File, LogArguments: cfg.Audit.LogArguments,
			MaxBytes: int64(cfg.Audit.MaxSizeMB) << 20, MaxFiles: cfg.Audit.MaxFiles, Redactor: redact, TraceIDs: tracer != nil})
		if err != nil {
			_ = shutdown(ctx)
			return nil, err
		}
		o.audit = l
	}
	return o, nil
}

// observer is what the hub calls on every tool call and status change.
func (o *observability) observer() hub.Observer {
	obs := hub.Observers{o.live}
	if o.metricsOn {
		obs = append(obs, o.metrics)
	}
	if o.audit != nil {
		obs = append(obs, o.audit)
	}
	if o.tracer != nil {
		obs = append(obs, o.tracer)
	}
	return obs
}

// middleware is what wraps the face's requests: the tracer's request spans.
func (o *observability) middleware() []mcp.Middleware {
	if o.tracer == nil {
		return nil
	}
	return []mcp.Middleware{o.tracer.Middleware()}
}

// gatewayOptions are the face's health and extra routes.
func (o *observability) gatewayOptions(cfg *config.Config) (gateway.HealthOptions, []gateway.Route) {
	o.requires.Store(&cfg.Gateway.ReadyRequires)
	health := gateway.HealthOptions{Applied: o.applied.Load, Requires: func() []string { return *o.requires.Load() }}
	if !o.metricsOn {
		return health, nil
	}
	return health, []gateway.Route{{Pattern: "GET " + MetricsPath, Handler: o.metrics.Handler()}}
}

// changed records a config change: its duration and what it did, in the
// metrics and the audit log. err is the change's own error (nothing
// applied, cfg nil); servers that failed to connect are in res.
func (o *observability) changed(source string, began time.Time, cfg *config.Config, res hub.ApplyResult, err error) {
	if source == "reload" {
		o.metrics.Reloaded(time.Since(began), err)
	}
	if o.audit != nil {
		ch := audit.Change{Source: source, Added: res.Added, Removed: res.Removed, Changed: res.Changed}
		if err != nil {
			ch.Failed = map[string]string{"config": err.Error()}
		}
		for name, ferr := range res.Failed {
			if ch.Failed == nil {
				ch.Failed = map[string]string{}
			}
			ch.Failed[name] = ferr.Error()
		}
		o.audit.ConfigChanged(ch)
	}
	if cfg != nil { // last: once /readyz sees the new list, the rest is recorded
		o.requires.Store(&cfg.Gateway.ReadyRequires)
	}
}

// planEvent counts a plan step's end (retries and skips included) and
// shows every step event on the dashboard.
func (o *observability) planEvent(id string, e plan.Event) {
	if o == nil {
		return
	}
	if e.Step != nil {
		o.live.PlanStep(id, e.Step.Index, string(e.Kind))
	}
	if e.Kind != plan.StepStarted {
		o.metrics.PlanStep(string(e.Kind))
	}
}

// planRun counts a finished plan run.
func (o *observability) planRun(err error) {
	if o != nil {
		o.metrics.PlanRun(err)
	}
}

func (o *observability) close() {
	o.live.Close()
	if o.audit != nil {
		_ = o.audit.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = o.traceShutdown(ctx) // flush spans; a collector that is down loses them
}

// span starts an internal span (a plan run, a delegation) whose end takes
// the outcome; without tracing both are no-ops.
func (o *observability) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func(error)) {
	if o == nil || o.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := o.tracer.Start(ctx, name, attrs...)
	return ctx, func(err error) { tracing.End(span, err) }
}

// tracedDelegator gives every delegation a span; the calls it makes back
// into weft continue the trace through _meta.
type tracedDelegator struct {
	gateway.Delegator
	obs *observability
}

// Delegate implements gateway.Delegator.
func (d tracedDelegator) Delegate(ctx context.Context, in gateway.DelegateArgs, progress func(string)) (gateway.DelegateResult, error) {
	ctx, end := d.obs.span(ctx, "delegation", attribute.Int("weft.delegation.depth", in.Depth))
	res, err := d.Delegator.Delegate(ctx, in, progress)
	end(err)
	return res, err
}

// delegator wraps d in a span when tracing is on.
func (o *observability) delegator(d gateway.Delegator) gateway.Delegator {
	if d == nil || o.tracer == nil {
		return d
	}
	return tracedDelegator{Delegator: d, obs: o}
}

// withPlanCaller marks tool calls made by plan id as the plan's, keeping
// the face and session that started it.
func withPlanCaller(ctx context.Context, id string) context.Context {
	c := hub.CallerFrom(ctx)
	c.Agent = "plan:" + id
	return hub.WithCaller(ctx, c)
}

// hubSource lets the metrics and the dashboard read a hub created after
// them.
type hubSource struct{ *hub.Hub }
