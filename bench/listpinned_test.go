//go:build linux

package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/weft-dev/weft/internal/testutil"
)

// BenchmarkToolsList10kPinned is BenchmarkToolsList10k with a go-sdk
// client pinned to 2025-11-25: a stateful session, whose plain tools/list
// the face's relay answers from the pages go-sdk last answered
// (internal/gateway/listpages.go). The default client of
// BenchmarkToolsList10k negotiates 2026-07-28, whose requests go-sdk's
// stateless handler answers.
func BenchmarkToolsList10kPinned(b *testing.B) {
	cs, err := connectHTTPAs(context.Background(), gatewayURL(b, upstreams10k(b)), clientPinned)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	b.ResetTimer()
	for b.Loop() {
		n, err := listTools(context.Background(), cs)
		if err != nil || n < 10000 {
			b.Fatalf("listed %d tools: %v", n, err)
		}
	}
}

// upstreams10k serves the listing benchmarks' upstreams: 10 go-sdk echo
// servers of 1,000 tools each, h0 … h9, by name.
func upstreams10k(b *testing.B) map[string]string {
	ups := map[string]string{}
	for i := range 10 {
		name := fmt.Sprintf("h%d", i)
		ups[name] = testutil.ServeHTTP(b, testutil.NewEchoServer(name, 1000))
	}
	return ups
}
