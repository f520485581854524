package tracing_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The client's trace: weft must continue it.
const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientParent = "00f067aa0ba902b7"
)

// upstream is a real go-sdk server whose tool keeps the _meta it got.
func upstream(t *testing.T) (url string, seen func() mcp.Meta) {
	var mu sync.Mutex
	var got mcp.Meta
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
		mu.Lock()
		got = req.Params.Meta
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, struct{}{}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return srv.URL, func() mcp.Meta { mu.Lock(); defer mu.Unlock(); return got }
}

// tracedFace is a face over upstream with a tracer recording to exp.
func tracedFace(t *testing.T) (gw *gateway.Gateway, exp *tracetest.InMemoryExporter, seen func() mcp.Meta) {
	exp = tracetest.NewInMemoryExporter()
	tr := tracing.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	url, seen := upstream(t)
	h := hub.New(hub.Options{Logger: logger, Observer: tr})
	t.Cleanup(func() { h.Close(context.Background()) })
	if _, err := h.Add(context.Background(), &config.Server{Name: "up", Target: url, Type: config.TransportHTTP, TimeoutMS: 10_000}); err != nil {
		t.Fatal(err)
	}
	return gateway.New(h, gateway.Options{Logger: logger, Middleware: []mcp.Middleware{tr.Middleware()}}), exp, seen
}

func TestTraceCrossesWeft(t *testing.T) {
	gw, exp, seen := tracedFace(t)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "up__echo",
		Meta: mcp.Meta{"traceparent": "00-" + clientTrace + "-" + clientParent + "-01"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}

	spans := map[string]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		spans[s.Name] = s
	}
	req, ok := spans["tools/call"]
	if !ok {
		t.Fatalf("no request span among %v", names(exp.GetSpans()))
	}
	call, ok := spans["tools/call up__echo"]
	if !ok {
		t.Fatalf("no upstream call span among %v", names(exp.GetSpans()))
	}
	if req.SpanContext.TraceID().String() != clientTrace || req.Parent.SpanID().String() != clientParent || !req.Parent.IsRemote() {
		t.Fatalf("request span %s/%s under %s, want the client's trace and parent", req.SpanContext.TraceID(), req.SpanContext.SpanID(), req.Parent.SpanID())
	}
	if req.SpanKind != trace.SpanKindServer || call.SpanKind != trace.SpanKindClient {
		t.Errorf("span kinds %v and %v, want server and client", req.SpanKind, call.SpanKind)
	}
	if call.Parent.SpanID() != req.SpanContext.SpanID() || call.SpanContext.TraceID().String() != clientTrace {
		t.Fatalf("upstream call span is not the request span's child in the client's trace")
	}
	want := "00-" + clientTrace + "-" + call.SpanContext.SpanID().String() + "-01"
	if got, _ := seen()["traceparent"].(string); got != want {
		t.Fatalf("upstream got traceparent %q, want %q (weft's call span)", got, want)
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func TestEnabledFollowsOTELVariables(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
	}
	for _, tt := range tests {
		if got := tracing.Enabled(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: enabled %v, want %v", tt.env, got, tt.want)
		}
	}
}

func TestSetupRefusesUnknownProtocol(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
	_, _, err := tracing.Setup(context.Background(), "test", func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "http/protobuf or grpc") {
		t.Fatalf("setup with protocol http/json: %v, want a refusal naming the supported ones", err)
	}
}

// TestStatelessRequestIsTraced: a 2026-07-28 client's call over HTTP, which
// the face's relay answers with no session, still gets its request span.
func TestStatelessRequestIsTraced(t *testing.T) {
	gw, exp, _ := tracedFace(t)
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + gateway.Endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "up__echo"}); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	for _, s := range exp.GetSpans() {
		if s.Name == "tools/call" {
			return
		}
	}
	t.Fatalf("no request span among %v", names(exp.GetSpans()))
}
