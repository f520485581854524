//go:build linux

package main

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
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
	benchFanin(b, servers, 10000)
}

// BenchmarkFaninStdio100 is scenario 2's stdio row in one process: 100
// benchserver children of 20 tools each, launched by the hub. The
// children's own CPU is outside the profile, so it shows weft's share.
func BenchmarkFaninStdio100(b *testing.B) {
	bin := testutil.GoBinary(b, "github.com/weft-dev/weft/testdata/benchserver", "benchserver")
	servers := map[string]*config.Server{}
	for i := range 100 {
		name := fmt.Sprintf("s%03d", i)
		servers[name] = &config.Server{Name: name, Type: config.TransportStdio, Target: bin, Args: []string{"--tools", "20"}}
	}
	benchFanin(b, servers, 2000)
}

// benchFanin starts a hub and face with servers until at least tools are
// listed, once per iteration, the way `weft serve` starts (Hub.Start, every
// server connecting in the background).
func benchFanin(b *testing.B, servers map[string]*config.Server, tools int) {
	logger := slog.New(slog.DiscardHandler)
	for b.Loop() {
		h := hub.New(hub.Options{Logger: logger, Reserved: gateway.BuiltinNames, MaxTools: 1 << 20})
		gateway.New(h, gateway.Options{Logger: logger, Version: "bench"})
		h.Start(servers)
		if failed := h.Settle(context.Background()); len(failed) > 0 {
			b.Fatalf("upstreams failed: %v", failed)
		}
		if n := len(h.Catalog().Tools); n < tools {
			b.Fatalf("listed %d tools", n)
		}
		h.Close(context.Background())
	}
}
