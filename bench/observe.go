//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
)

// observeRow compares weft serve with metrics and the audit log off and
// on, over HTTP at one concurrency.
type observeRow struct {
	Concurrency int     `json:"concurrency"`
	Off         stats   `json:"off"`
	On          stats   `json:"on"`
	Ratio       float64 `json:"throughput_ratio"` // on ÷ off calls/s
	AddedP50MS  float64 `json:"added_p50_ms"`
	// OffCost and OnCost are each weft's CPU per call: the observers' cost
	// where the machine's noise hides it in calls/s.
	OffCost cost     `json:"off_cost"`
	OnCost  cost     `json:"on_cost"`
	Errors  []string `json:"errors,omitempty"`
}

// observeCost runs the observability scenario: two wefts in front of the
// same HTTP upstream, one with [metrics] enabled = false and no audit log,
// one with both, measured in alternating rounds. The rounds are four times
// as many and as short as the overhead scenario's: what is measured here is
// a few µs of a call, less than a swing of a shared machine's load during
// one long round.
func observeCost(ctx context.Context, w *workspace, o options) ([]observeRow, error) {
	up, upURL, err := w.httpUpstream(ctx, "observe-upstream")
	if err != nil {
		return nil, err
	}
	defer up.stop()
	entries := []entry{{name: "bench", target: upURL}}
	off, err := w.weftCaller(ctx, "observe-off", entries, "[metrics]\nenabled = false\n")
	if err != nil {
		return nil, err
	}
	defer off.close()
	on, err := w.weftCaller(ctx, "observe-on", entries, fmt.Sprintf("[audit]\nfile = %q\n", w.path(filepath.Join("observe-logs", "audit.jsonl"))))
	if err != nil {
		return nil, err
	}
	defer on.close()
	var rows []observeRow
	for _, conc := range []int{1, 64} {
		p := &pathPair{transport: "http", direct: off.weft, weft: on.weft, directRoles: off.weftRoles, weftRoles: on.weftRoles,
			rounds: 4 * o.rounds()}
		r := measurePair(ctx, p, conc, o)
		rows = append(rows, observeRow{Concurrency: conc, Off: r.Direct, On: r.Weft, Ratio: r.Ratio, AddedP50MS: r.AddedP50MS,
			OffCost: r.DirectCost, OnCost: r.WeftCost, Errors: r.Errors})
		o.progress("observe c=%d done", conc)
	}
	return rows, nil
}

// httpUpstream starts the bench server over HTTP and waits for its URL.
func (w *workspace) httpUpstream(ctx context.Context, name string) (*proc, string, error) {
	return w.startURL(ctx, name, w.benchserver, "--http", "127.0.0.1:0")
}

// weftCaller starts weft serve for entries (plus extra config tables) and
// returns a caller of bench__echo through it; close stops both.
func (w *workspace) weftCaller(ctx context.Context, name string, entries []entry, extra string) (*pathPair, error) {
	p := &pathPair{transport: "http"}
	cfg := w.path(name + ".toml")
	if err := writeConfig(cfg, entries, extra); err != nil {
		return nil, err
	}
	wp, url, err := w.startServe(ctx, name, cfg)
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, wp.stop)
	p.weftRoles.gateway = wp.cmd.Process.Pid
	cs, err := connectHTTP(ctx, url)
	if err != nil {
		p.close()
		return nil, err
	}
	p.closers = append(p.closers, closeSession(cs))
	p.weft, p.session, p.url = echoCaller(cs, "bench__echo"), cs, url
	return p, nil
}
