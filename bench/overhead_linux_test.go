package main

import "testing"

// TestOverheadShortReportsCostOfEveryProcess runs scenario 1 in smoke mode
// and checks that every row carries CPU per call for each process of each
// path and the gateway's memory, and that the direct-http comparison of a
// stdio upstream behind `weft serve` is there, for a client pinned to
// 2025-11-25 and for go-sdk's default client, which weft's faces give
// 2026-07-28.
func TestOverheadShortReportsCostOfEveryProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts weft and upstreams; skipped with -short")
	}
	res := runShortJSON(t, "overhead")
	seen := map[string]bool{}
	for _, o := range res.Overhead {
		seen[o.Transport+" "+o.Client] = true
		want := map[string]string{clientPinned: "2025-11-25", clientDefault: "2026-07-28"}[o.Client]
		if o.Revision != want {
			t.Errorf("%s client %s: weft negotiated %q, want %q", o.Transport, o.Client, o.Revision, want)
		}
		if o.DirectRev == "" {
			t.Errorf("%s client %s: the direct path's revision is missing", o.Transport, o.Client)
		}
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
		for _, client := range []string{clientPinned, clientDefault} {
			if !seen[tr+" "+client] {
				t.Errorf("no overhead row for %s with the %s client; rows: %+v", tr, client, res.Overhead)
			}
		}
	}
}
