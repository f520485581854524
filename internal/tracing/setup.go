package tracing

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// Enabled reports whether the standard OTEL_* variables ask for traces:
// an OTLP endpoint is set, or OTEL_TRACES_EXPORTER is otlp; never when
// OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is none.
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(getenv("OTEL_TRACES_EXPORTER")) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup builds an OTLP tracer configured by the OTEL_* variables (endpoint,
// headers, protocol http/protobuf or grpc, service name, sampler), or
// returns nil when Enabled is false. Shutdown flushes what is buffered.
func Setup(ctx context.Context, version string, getenv func(string) string) (*Tracer, func(context.Context) error, error) {
	if !Enabled(getenv) {
		return nil, func(context.Context) error { return nil }, nil
	}
	exp, err := exporter(ctx, getenv)
	if err != nil {
		return nil, nil, err
	}
	// resource.Default reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES;
	// weft names itself only when they do not.
	res, err := resource.Merge(resource.NewSchemaless(semconv.ServiceName("weft"), semconv.ServiceVersion(version)), resource.Default())
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return New(tp), tp.Shutdown, nil
}

// exporter picks the OTLP transport OTEL_EXPORTER_OTLP[_TRACES]_PROTOCOL
// names (default http/protobuf); the exporters read the other variables.
func exporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto {
	case "", "http/protobuf":
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry OTLP/HTTP exporter: %w; check the OTEL_EXPORTER_OTLP_* variables", err)
		}
		return exp, nil
	case "grpc":
		exp, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry OTLP/gRPC exporter: %w; check the OTEL_EXPORTER_OTLP_* variables", err)
		}
		return exp, nil
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL is %q; weft exports traces over http/protobuf or grpc", proto)
}
