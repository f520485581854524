//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callTimeout bounds one measured call; a call past it counts as failed.
const callTimeout = 30 * time.Second

// caller makes one measured call.
type caller func(ctx context.Context) error

// sample is what one load run measured.
type sample struct {
	lat    []time.Duration // one per completed call, failed ones included
	failed int
	wall   time.Duration
	errs   []string // the first few distinct failures
}

// stats summarise a sample.
type stats struct {
	Calls       int     `json:"calls"`
	Failed      int     `json:"failed"`
	P50MS       float64 `json:"p50_ms"`
	P99MS       float64 `json:"p99_ms"`
	CallsPerSec float64 `json:"calls_per_sec"`
}

// echoCaller calls tool (an echo) on s and treats a tool error as a failure.
// Each call gets its own params: go-sdk writes request metadata into them,
// so concurrent calls must not share them.
func echoCaller(s *mcp.ClientSession, tool string) caller {
	args := map[string]any{"text": "ping"}
	return func(ctx context.Context) error {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("%s returned a tool error: %s", tool, contentText(res))
		}
		return nil
	}
}

func contentText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return "(no text)"
}

// runCount makes n calls with conc workers.
func runCount(ctx context.Context, call caller, n, conc int) sample {
	var issued atomic.Int64
	return drive(ctx, call, conc, func() bool { return issued.Add(1) <= int64(n) })
}

// runFor makes calls with conc workers until d has passed.
func runFor(ctx context.Context, call caller, d time.Duration, conc int) sample {
	deadline := time.Now().Add(d)
	return drive(ctx, call, conc, func() bool { return time.Now().Before(deadline) })
}

// drive starts conc workers that call while more() says so, and waits for
// them all.
func drive(ctx context.Context, call caller, conc int, more func() bool) sample {
	var (
		mu  sync.Mutex
		out sample
		wg  sync.WaitGroup
	)
	start := time.Now()
	for range conc {
		wg.Go(func() {
			lat, failed, errs := worker(ctx, call, more)
			mu.Lock()
			defer mu.Unlock()
			out.lat = append(out.lat, lat...)
			out.failed += failed
			for _, e := range errs {
				if len(out.errs) < 5 && !slices.Contains(out.errs, e) {
					out.errs = append(out.errs, e)
				}
			}
		})
	}
	wg.Wait()
	out.wall = time.Since(start)
	return out
}

func worker(ctx context.Context, call caller, more func() bool) (lat []time.Duration, failed int, errs []string) {
	for ctx.Err() == nil && more() {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		t0 := time.Now()
		err := call(cctx)
		lat = append(lat, time.Since(t0))
		cancel()
		if err != nil {
			failed++
			if len(errs) < 5 {
				errs = append(errs, err.Error())
			}
		}
	}
	return lat, failed, errs
}

// merge pools samples of repeated rounds.
func merge(ss ...sample) sample {
	var out sample
	for _, s := range ss {
		out.lat = append(out.lat, s.lat...)
		out.failed += s.failed
		out.wall += s.wall
		out.errs = append(out.errs, s.errs...)
	}
	return out
}

// summarise computes percentiles and throughput.
func (s sample) summarise() stats {
	st := stats{Calls: len(s.lat), Failed: s.failed}
	if len(s.lat) == 0 {
		return st
	}
	sorted := slices.Clone(s.lat)
	slices.Sort(sorted)
	st.P50MS = ms(percentile(sorted, 50))
	st.P99MS = ms(percentile(sorted, 99))
	if s.wall > 0 {
		st.CallsPerSec = float64(len(s.lat)) / s.wall.Seconds()
	}
	return st
}

// percentile is the nearest-rank percentile p of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	rank = max(0, min(rank, len(sorted)-1))
	return sorted[rank]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
