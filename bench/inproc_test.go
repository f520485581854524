//go:build linux

package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// These benchmarks drive internal/hub and internal/gateway in one process,
// so that `go test -cpuprofile` shows where weft spends its time per call
// and per tools/list (weft has no pprof flag). The face is Streamable HTTP,
// as with `weft serve`; upstreams are go-sdk servers on httptest.

// gatewayURL starts a hub and gateway with the given upstreams and serves
// the face over HTTP for the benchmark's lifetime.
func gatewayURL(b *testing.B, upstreams map[string]string) string {
	b.Helper()
	servers := map[string]*config.Server{}
	for name, url := range upstreams {
		servers[name] = &config.Server{Name: name, Type: config.TransportHTTP, Target: url}
	}
	return gatewayOf(b, servers)
}

// gatewayOf is gatewayURL for upstreams of any transport.
func gatewayOf(b *testing.B, servers map[string]*config.Server) string {
	b.Helper()
	logger := slog.New(slog.DiscardHandler)
	h := hub.New(hub.Options{Logger: logger, Reserved: gateway.BuiltinNames, MaxTools: 1 << 20})
	b.Cleanup(func() { h.Close(context.Background()) })
	gw := gateway.New(h, gateway.Options{Logger: logger, Version: "bench"})
	if res := h.Apply(context.Background(), servers); len(res.Failed) > 0 {
		b.Fatalf("upstreams failed: %v", res.Failed)
	}
	srv := httptest.NewServer(gw.Handler())
	b.Cleanup(srv.Close)
	return srv.URL + gateway.Endpoint
}

func session(b *testing.B, url string) *mcp.ClientSession {
	b.Helper()
	cs, err := connectHTTP(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// benchCalls runs echo calls at 64 in flight (as scenario 1 does).
func benchCalls(b *testing.B, call caller) {
	b.SetParallelism(32) // × GOMAXPROCS 2 = 64 callers on this machine
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := call(context.Background()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkCallDirect(b *testing.B) {
	up := testutil.ServeHTTP(b, testutil.NewEchoServer("bench", 1))
	benchCalls(b, echoCaller(session(b, up), "echo"))
}

func BenchmarkCallThroughGateway(b *testing.B) {
	up := testutil.ServeHTTP(b, testutil.NewEchoServer("bench", 1))
	url := gatewayURL(b, map[string]string{"bench": up})
	benchCalls(b, echoCaller(session(b, url), "bench__echo"))
}

// BenchmarkCallThroughGatewayPinned is BenchmarkCallThroughGateway with
// a client pinned to 2025-11-25: a stateful session on weft's face, as
// legacy clients use it.
func BenchmarkCallThroughGatewayPinned(b *testing.B) {
	up := testutil.ServeHTTP(b, testutil.NewEchoServer("bench", 1))
	cs, err := connectHTTPAs(context.Background(), gatewayURL(b, map[string]string{"bench": up}), clientPinned)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	benchCalls(b, echoCaller(cs, "bench__echo"))
}

// BenchmarkCallThroughGatewayPinnedStdio is BenchmarkCallThroughGatewayPinned
// with testdata/benchserver as a stdio upstream: the relay with raw results
// (internal/upstream/rawconn.go), as `weft serve` runs the overhead
// scenario's stdio rows.
func BenchmarkCallThroughGatewayPinnedStdio(b *testing.B) {
	bin := testutil.GoBinary(b, "github.com/weft-dev/weft/testdata/benchserver", "benchserver")
	url := gatewayOf(b, map[string]*config.Server{"bench": {Name: "bench", Type: config.TransportStdio, Target: bin}})
	cs, err := connectHTTPAs(context.Background(), url, clientPinned)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	benchCalls(b, echoCaller(cs, "bench__echo"))
}

// BenchmarkCallThroughGatewayStdio is BenchmarkCallThroughGatewayPinnedStdio
// with the default client (2026-07-28): the stateless relay with raw
// results, as `weft serve` runs the overhead scenario's default-client rows.
func BenchmarkCallThroughGatewayStdio(b *testing.B) {
	bin := testutil.GoBinary(b, "github.com/weft-dev/weft/testdata/benchserver", "benchserver")
	url := gatewayOf(b, map[string]*config.Server{"bench": {Name: "bench", Type: config.TransportStdio, Target: bin}})
	benchCalls(b, echoCaller(session(b, url), "bench__echo"))
}

func BenchmarkToolsList10k(b *testing.B) {
	cs := session(b, gatewayURL(b, upstreams10k(b)))
	b.ResetTimer()
	for b.Loop() {
		n, err := listTools(context.Background(), cs)
		if err != nil || n < 10000 {
			b.Fatalf("listed %d tools: %v", n, err)
		}
	}
}
