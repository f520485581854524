package main

import "testing"

// TestOverheadShortReportsCostOfEveryProcess runs scenario 1 in smoke mode
// and checks that every row carries CPU per call for each process of each
// path and the gateway's memory, and that the direct-http comparison of a
// stdio upstream behind `weft serve` is there.
func TestOverheadShortReportsCostOfEveryProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts weft and upstreams; skipped with -short")
	}
	res := runShortJSON(t, "overhead")
	seen := map[string]bool{}
	for _, o := range res.Overhead {
		seen[o.Transport] = true
		d, w := o.DirectCost, o.WeftCost
		// CPU is read in 10 ms ticks, so a process can show zero in a short
		// run; memory is always there.
		if d.ClientUS <= 0 || w.ClientUS <= 0 || w.GatewayUS+w.UpstreamUS <= 0 {
			t.Errorf("%s c=%d: CPU per call missing: direct %+v, weft %+v", o.Transport, o.Concurrency, d, w)
		}
		if w.GatewayRSSMB <= 0 || w.GatewayPeakMB < w.GatewayRSSMB || w.UpstreamRSSMB <= 0 || d.UpstreamRSSMB <= 0 {
			t.Errorf("%s c=%d: memory missing: direct %+v, weft %+v", o.Transport, o.Concurrency, d, w)
		}
	}
	for _, tr := range []string{"stdio", "http", transportServeStdio} {
		if !seen[tr] {
			t.Errorf("no overhead row for %s; rows: %+v", tr, res.Overhead)
		}
	}
}
