//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// startupRow is one time-to-answer measurement (scenario startup): how long
// `weft serve` takes to listen and `weft mcp-server` to answer initialize
// with n upstreams configured, one of which never answers its handshake.
type startupRow struct {
	Upstreams    int     `json:"upstreams"`
	Hung         int     `json:"hung"`
	ListenMS     float64 `json:"serve_listen_p50_ms"`
	InitializeMS float64 `json:"mcp_server_initialize_p50_ms"`
}

// startupCounts are the upstream counts the scenario measures.
var startupCounts = []int{0, 10, 100}

// startup measures time to listen and to initialize for each count.
func startup(ctx context.Context, w *workspace, o options) ([]startupRow, error) {
	var rows []startupRow
	for _, n := range startupCounts {
		row, err := startupAt(ctx, w, n, o.startupRepeats())
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
		o.progress("startup with %d upstreams done", n)
	}
	return rows, nil
}

// startupAt writes a config of n upstreams (one hung when n > 0) and times
// k starts of each face; the upstreams' own start is not waited for.
func startupAt(ctx context.Context, w *workspace, n, k int) (startupRow, error) {
	row := startupRow{Upstreams: n}
	entries := make([]entry, n)
	for i := range entries {
		entries[i] = entry{name: fmt.Sprintf("s%03d", i), target: w.benchserver, args: []string{"--tools", "20"}}
	}
	if n > 0 {
		entries[0] = entry{name: "hung", target: "sleep", args: []string{"1000"}}
		row.Hung = 1
	}
	cfg := w.path(fmt.Sprintf("startup-%d.toml", n))
	if err := writeConfig(cfg, entries); err != nil {
		return row, err
	}
	var listen, initialize []time.Duration
	for i := range k {
		t0 := time.Now()
		p, _, err := w.startServe(ctx, fmt.Sprintf("weft-startup-%d-%d", n, i), cfg)
		if err != nil {
			return row, err
		}
		listen = append(listen, time.Since(t0))
		p.stop()
		t0 = time.Now()
		cs, err := w.connectStdio(ctx, fmt.Sprintf("weft-stdio-startup-%d-%d", n, i), w.weft, "--config", cfg, "--log-level", "warn", "mcp-server")
		if err != nil {
			return row, err
		}
		initialize = append(initialize, time.Since(t0))
		_ = cs.Close()
	}
	slices.Sort(listen)
	slices.Sort(initialize)
	row.ListenMS, row.InitializeMS = ms(percentile(listen, 50)), ms(percentile(initialize, 50))
	return row, nil
}
