//go:build linux

package main

import (
	"context"
	"os"
	"testing"
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
	benchCalls(b, echoCaller(cs, tool))
}
