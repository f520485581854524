//go:build linux

package main

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallExternal drives echo calls at 64 in flight against a weft
// that is already running, so that the weft process alone can be profiled
// (perf record -p PID) under the overhead load; see
// docs/guides/performance.md. WEFT_BENCH_URL is its MCP endpoint and
// WEFT_BENCH_TOOL the echo tool's name there (default bench__echo);
// WEFT_BENCH_REV, when set, pins the client's protocol revision (for
// example 2025-11-25, a stateful session; by default the client asks for
// the newest revision, which weft serves statelessly).
func BenchmarkCallExternal(b *testing.B) {
	cs, tool := externalSession(b)
	benchCalls(b, echoCaller(cs, tool))
}

// BenchmarkCallExternalSerial is BenchmarkCallExternal at one call in
// flight, the overhead scenario's latency row: it reports the calls' p50
// and p90 (p50-µs, p90-µs) beside the mean, for A/Bs of weft's latency at
// concurrency 1 ("Latency at concurrency 1" in docs/guides/performance.md).
func BenchmarkCallExternalSerial(b *testing.B) {
	cs, tool := externalSession(b)
	call := echoCaller(cs, tool)
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if err := call(context.Background()); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50).Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(percentile(lat, 90).Nanoseconds())/1e3, "p90-µs")
}

// externalSession connects to the weft named by WEFT_BENCH_URL and returns
// the session and the echo tool's name there.
func externalSession(b *testing.B) (*mcp.ClientSession, string) {
	b.Helper()
	url := os.Getenv("WEFT_BENCH_URL")
	if url == "" {
		b.Skip("set WEFT_BENCH_URL to a running weft's MCP endpoint")
	}
	tool := os.Getenv("WEFT_BENCH_TOOL")
	if tool == "" {
		tool = "bench__echo"
	}
	cs, err := connectHTTPAs(context.Background(), url, os.Getenv("WEFT_BENCH_REV"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs, tool
}
