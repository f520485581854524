//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// churnConcurrency is the load scenario 3 keeps up while servers come and go.
const churnConcurrency = 16

// churnRow is one run of scenario 3: quiet, or with config churn.
type churnRow struct {
	Label        string   `json:"label"`
	IntervalMS   int      `json:"interval_ms,omitempty"`
	Calls        stats    `json:"calls"`
	P99Ratio     float64  `json:"p99_ratio_vs_quiet,omitempty"`
	ConfigWrites int      `json:"config_writes"`
	SeenActive   int      `json:"churn_servers_seen_active"`
	Errors       []string `json:"errors,omitempty"`
}

// churn runs scenario 3: echo calls at concurrency 16 through `weft serve`
// to one stdio upstream, first quietly, then while another server is added
// and the previous one removed every interval by rewriting the config file
// that weft hot-reloads.
func churn(ctx context.Context, w *workspace, o options) ([]churnRow, error) {
	cfg := w.path("churn.toml")
	base := []entry{{name: "bench", target: w.benchserver}}
	if err := writeConfig(cfg, base); err != nil {
		return nil, err
	}
	p, url, err := w.startServe(ctx, "weft-churn", cfg)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	cs, err := connectHTTP(ctx, url)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	call := echoCaller(cs, "bench__echo")
	runCount(ctx, call, 100, churnConcurrency)
	d := o.churnDuration()
	quiet := runFor(ctx, call, d, churnConcurrency)
	rows := []churnRow{{Label: "quiet", Calls: quiet.summarise(), Errors: quiet.errs}}
	o.progress("churn quiet done")
	for _, every := range o.churnIntervals() {
		row, err := churnRun(ctx, cfg, base, adminBase(url), call, d, every)
		if err != nil {
			return rows, err
		}
		if q := rows[0].Calls.P99MS; q > 0 {
			row.P99Ratio = row.Calls.P99MS / q
		}
		rows = append(rows, row)
		o.progress("churn every %s done", every)
	}
	return rows, nil
}

// churnRun measures calls for d while the config changes every interval,
// then restores the base config and waits for weft to settle.
func churnRun(ctx context.Context, cfg string, base []entry, admin string, call caller, d, every time.Duration) (churnRow, error) {
	row := churnRow{Label: fmt.Sprintf("churn every %s", every), IntervalMS: int(every.Milliseconds())}
	bg, stop := context.WithCancel(ctx)
	var (
		wg       sync.WaitGroup
		writeErr error
		seen     = map[string]bool{}
	)
	wg.Go(func() { row.ConfigWrites, writeErr = churner(bg, cfg, base, every) })
	wg.Go(func() { observe(bg, admin, seen) })
	s := runFor(ctx, call, d, churnConcurrency)
	stop()
	wg.Wait()
	row.Calls, row.Errors, row.SeenActive = s.summarise(), s.errs, len(seen)
	if writeErr != nil {
		return row, writeErr
	}
	if err := writeConfig(cfg, base); err != nil {
		return row, err
	}
	return row, settle(ctx, admin, len(base))
}

// churner rewrites the config every interval until ctx ends: each write
// adds a new server and drops the one the previous write added.
func churner(ctx context.Context, cfg string, base []entry, every time.Duration) (int, error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	target := base[0].target
	for k := 1; ; k++ {
		select {
		case <-ctx.Done():
			return k - 1, nil
		case <-tick.C:
		}
		name := fmt.Sprintf("churn_%04d", k)
		next := append(append([]entry{}, base...), entry{name: name, target: target, args: []string{"--name", name}})
		if err := writeConfig(cfg, next); err != nil {
			return k, err
		}
	}
}

// observe polls weft's status and records every churn server seen active,
// which tells how many of the writes weft actually applied.
func observe(ctx context.Context, admin string, seen map[string]bool) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if st, err := status(ctx, admin); err == nil {
			for _, s := range st.Servers {
				if strings.HasPrefix(s.Name, "churn_") && s.Status == "active" {
					seen[s.Name] = true
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// settle waits until weft runs exactly want servers, all active.
func settle(ctx context.Context, admin string, want int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := status(ctx, admin)
		if err == nil && len(st.Servers) == want && active(st) == want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("weft did not settle back to %d servers after churn: %w", want, ctx.Err())
		case <-tick.C:
		}
	}
}
