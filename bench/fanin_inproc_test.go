//go:build linux

package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// BenchmarkFaninHTTP10k starts a hub and face and connects 10 HTTP
// upstreams of 1,000 tools each (scenario 2's HTTP row, in one process),
// so that `go test -cpuprofile` shows weft's share of start → all listed.
func BenchmarkFaninHTTP10k(b *testing.B) {
	ups := upstreams10k(b)
	servers := map[string]*config.Server{}
	for name, url := range ups {
		servers[name] = &config.Server{Name: name, Type: config.TransportHTTP, Target: url}
	}
	logger := slog.New(slog.DiscardHandler)
	for b.Loop() {
		h := hub.New(hub.Options{Logger: logger, Reserved: gateway.BuiltinNames, MaxTools: 1 << 20})
		gateway.New(h, gateway.Options{Logger: logger, Version: "bench"})
		if res := h.Apply(context.Background(), servers); len(res.Failed) > 0 {
			b.Fatalf("upstreams failed: %v", res.Failed)
		}
		if n := len(h.Catalog().Tools); n < 10000 {
			b.Fatalf("listed %d tools", n)
		}
		h.Close(context.Background())
	}
}
