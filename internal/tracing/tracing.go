// Package tracing records OpenTelemetry traces of weft's work: a span per
// client request, with child spans per upstream call, plan run and
// delegation. The W3C trace context travels in MCP's _meta (traceparent,
// tracestate) both ways, so one trace crosses weft: taken from the client's
// request and passed on to the upstream.
package tracing

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// scope names weft's instrumentation.
const scope = "github.com/weft-dev/weft"

// propagator reads and writes W3C traceparent and tracestate.
var propagator = propagation.TraceContext{}

// metaCarrier lets the propagator read and write an MCP _meta map.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Tracer makes weft's spans. It implements hub.Observer for upstream calls;
// Middleware covers client requests.
type Tracer struct {
	tr trace.Tracer
}

// New returns a Tracer recording to tp.
func New(tp trace.TracerProvider) *Tracer {
	return &Tracer{tr: tp.Tracer(scope)}
}

// Middleware starts a server span for every request a client sends to the
// face, as a child of the traceparent in the request's _meta, if any.
func (t *Tracer) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p := req.GetParams(); p != nil {
				if meta := p.GetMeta(); meta != nil {
					ctx = propagator.Extract(ctx, metaCarrier(meta))
				}
			}
			ctx, span := t.tr.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("rpc.system", "mcp"), attribute.String("rpc.method", method)))
			defer span.End()
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && ss.ID() != "" { // nil: a stateless request weft relays
				span.SetAttributes(attribute.String("mcp.session.id", ss.ID()))
			}
			res, err := next(ctx, method, req)
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			return res, err
		}
	}
}

// CallStarted implements hub.Observer: a client span for the upstream
// call, whose context replaces any traceparent in the call's _meta.
func (t *Tracer) CallStarted(ctx context.Context, c *hub.Call) context.Context {
	ctx, _ = t.tr.Start(ctx, "tools/call "+c.Tool, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("mcp.tool", c.Tool)))
	meta := make(mcp.Meta, len(c.Meta)+2)
	for k, v := range c.Meta {
		meta[k] = v
	}
	delete(meta, "tracestate") // the upstream continues weft's span, not the client's state
	propagator.Inject(ctx, metaCarrier(meta))
	c.Meta = meta
	return ctx
}

// CallEnded implements hub.Observer.
func (t *Tracer) CallEnded(ctx context.Context, c *hub.Call) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("mcp.server", c.Server), attribute.String("weft.outcome", string(c.Outcome)),
		attribute.Int64("weft.upstream_ms", c.Upstream.Milliseconds()))
	if c.Outcome != hub.OutcomeOK {
		msg := string(c.Outcome)
		if c.Err != nil {
			msg = c.Err.Error()
		}
		span.SetStatus(codes.Error, msg)
	}
	span.End()
}

// ServerChanged implements hub.Observer; status changes are not traced.
func (t *Tracer) ServerChanged(hub.ServerEvent) {}

// Start begins an internal span (a plan run, an agent step, a delegation)
// under the one in ctx; the caller ends it with End.
func (t *Tracer) Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	return t.tr.Start(ctx, name, trace.WithAttributes(attrs...))
}

// End ends span, marking it failed when err is set.
func End(span trace.Span, err error) {
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
