//go:build linux

package main

import (
	"context"
	"testing"
)

// BenchmarkToolsList10kRaw lists 10,000 tools through weft's face with the
// raw client of rawclient.go, which reads only each tool's name and each
// page's nextCursor, so that the figure is the server's (a go-sdk client
// re-checks every schema).
func BenchmarkToolsList10kRaw(b *testing.B) {
	rc := newRawClient(b, gatewayURL(b, upstreams10k(b)))
	b.ResetTimer()
	for b.Loop() {
		if n := listAllRaw(b, rc); n < 10000 {
			b.Fatalf("listed %d tools", n)
		}
	}
}

// newRawClient opens a raw client's session at url, ended when b is.
func newRawClient(b *testing.B, url string) *rawClient {
	rc, err := dialRaw(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rc.close)
	return rc
}

// listAllRaw lists every tool with rc and says how many.
func listAllRaw(b *testing.B, rc *rawClient) int {
	n, err := rc.listAll(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return n
}
