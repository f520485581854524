package hub

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// benchHub is a hub with one active server whose calls do nothing, so a
// benchmark measures only what the manager adds to every call: state check,
// breaker, timeout context, per-server and global slots, in-flight counting
// and the outcome recorded.
func benchHub(b *testing.B, perServer, global int) *Hub {
	b.Helper()
	h := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxConcurrentCalls: global})
	cfg := &config.Server{Name: "s", Target: "x", Type: config.TransportStdio, MaxConcurrentCalls: perServer}
	s := newServer(cfg, config.Breaker{}, nil)
	_, _ = s.setActive(nil, cfg)
	h.servers["s"] = s
	return h
}

func noop(context.Context, *upstream.Conn) error { return nil }

// BenchmarkAdmission is the manager's cost per call, to compare with the
// cost of the call itself (BenchmarkCallDirect vs BenchmarkCallThroughGateway
// in bench/ measure a real go-sdk call over the same machine).
func BenchmarkAdmission(b *testing.B) {
	for _, bc := range []struct {
		name              string
		perServer, global int
	}{
		{"unlimited", 0, 0},
		{"limited", 64, config.DefaultMaxConcurrentCalls},
	} {
		b.Run(bc.name, func(b *testing.B) {
			h := benchHub(b, bc.perServer, bc.global)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := h.do(ctx, "s", noop); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			h := benchHub(b, bc.perServer, bc.global)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := h.do(ctx, "s", noop); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
