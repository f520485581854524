//go:build linux

package main

import (
	"context"
	"fmt"
	"time"
)

// roles are the processes of one measured path. The client is always the
// bench itself; gateway is 0 on a direct path. A pid that cannot be read
// (another OS, or a process that is gone) leaves its figure at zero.
type roles struct {
	gateway, upstream int
}

// cost is what one path spent per call, split by process, and the memory
// of its processes once the load is over. CPU shows a change's effect even
// when a loaded machine hides it in latency.
type cost struct {
	ClientUS       float64 `json:"client_cpu_us_per_call"`
	GatewayUS      float64 `json:"gateway_cpu_us_per_call,omitempty"`
	UpstreamUS     float64 `json:"upstream_cpu_us_per_call"`
	GatewayRSSMB   float64 `json:"gateway_rss_mb,omitempty"`
	GatewayPeakMB  float64 `json:"gateway_peak_rss_mb,omitempty"`
	UpstreamRSSMB  float64 `json:"upstream_rss_mb"`
	UpstreamPeakMB float64 `json:"upstream_peak_rss_mb"`
}

// cpuUse sums the CPU each role spent over the measured rounds.
type cpuUse struct {
	client, gateway, upstream time.Duration
}

// readCPU snapshots the CPU time of the client (this process) and of r's
// processes; a pid that is 0 or unreadable reads as zero.
func readCPU(r roles) cpuUse {
	at := func(pid int, self bool) time.Duration {
		if pid == 0 && !self {
			return 0
		}
		d, err := cpuTime(pid)
		if err != nil {
			return 0
		}
		return d
	}
	return cpuUse{client: at(0, true), gateway: at(r.gateway, false), upstream: at(r.upstream, false)}
}

// metered runs n calls at conc and adds the CPU each role spent to use.
func metered(ctx context.Context, call caller, n, conc int, r roles, use *cpuUse) sample {
	before := readCPU(r)
	s := runCount(ctx, call, n, conc)
	after := readCPU(r)
	use.client += after.client - before.client
	use.gateway += after.gateway - before.gateway
	use.upstream += after.upstream - before.upstream
	return s
}

// perCall turns the CPU spent over calls into µs per call and reads the
// memory of r's processes now.
func perCall(use cpuUse, calls int, r roles) cost {
	var c cost
	if calls > 0 {
		us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(calls) }
		c.ClientUS, c.GatewayUS, c.UpstreamUS = us(use.client), us(use.gateway), us(use.upstream)
	}
	if r.gateway != 0 {
		c.GatewayRSSMB, c.GatewayPeakMB, _ = rss(r.gateway)
	}
	if r.upstream != 0 {
		c.UpstreamRSSMB, c.UpstreamPeakMB, _ = rss(r.upstream)
	}
	return c
}

// Issue 18's goals, judged on `weft serve` (the HTTP face) against the
// direct Streamable HTTP path measured in the same run.
const (
	goalAddedStdioUpMS  = 0.05 // added p50 at c=1, stdio upstream
	goalAddedHTTPUpMS   = 0.10 // added p50 at c=1, HTTP upstream
	goalRatioStdioUp    = 1.25 // calls/s at c=64 ÷ direct-http, stdio upstream
	goalRatioHTTPUp     = 0.80 // the same, HTTP upstream
	goalGatewayCPUUS    = 80   // gateway CPU µs per call at c=64
	goalGatewayRSSMB    = 40   // gateway peak RSS under load
	transportServeStdio = "http-stdio"
)

// serveGoals judges one overhead row of `weft serve` against the relay's performance goals
// (docs/guides/performance.md).
func serveGoals(o overheadRow) []goal {
	up, added, ratio := "HTTP upstream", goalAddedHTTPUpMS, goalRatioHTTPUp
	if o.Transport == transportServeStdio {
		up, added, ratio = "stdio upstream", goalAddedStdioUpMS, goalRatioStdioUp
	}
	if o.Concurrency == 1 {
		return []goal{{"added p50 c=1 vs direct-http, " + up, fmt.Sprintf("≤ %.2f ms", added), fmt.Sprintf("%.3f ms", o.AddedP50MS), o.AddedP50MS <= added}}
	}
	return []goal{
		{"calls/s c=64 ÷ direct-http, " + up, fmt.Sprintf("≥ %.2f×", ratio), fmt.Sprintf("%.2f×", o.Ratio), o.Ratio >= ratio},
		{"gateway CPU per call c=64, " + up, fmt.Sprintf("≤ %d µs", goalGatewayCPUUS), fmt.Sprintf("%.0f µs", o.WeftCost.GatewayUS), o.WeftCost.GatewayUS > 0 && o.WeftCost.GatewayUS <= goalGatewayCPUUS},
		{"gateway RSS under load, " + up, fmt.Sprintf("≤ %d MB peak", goalGatewayRSSMB), fmt.Sprintf("%.1f MB (peak %.1f)", o.WeftCost.GatewayRSSMB, o.WeftCost.GatewayPeakMB), o.WeftCost.GatewayPeakMB > 0 && o.WeftCost.GatewayPeakMB <= goalGatewayRSSMB},
	}
}
