//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
)

// machine describes where the bench ran.
type machine struct {
	NProc     int    `json:"nproc"`
	CPU       string `json:"cpu"`
	GoVersion string `json:"go"`
	LoadAvg   string `json:"loadavg_at_start"`
}

func describeMachine() machine {
	m := machine{NProc: runtime.NumCPU(), GoVersion: runtime.Version(), CPU: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// goal is one of the performance goals (docs/guides/performance.md) with what was measured.
type goal struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

// goals checks every measured figure against the performance goals
// (docs/guides/performance.md): the relay's for `weft serve` against
// direct-http, the first bench's for the rest.
func goals(r *result) []goal {
	var out []goal
	for _, o := range r.Overhead {
		out = append(out, overheadGoals(o)...)
	}
	for i, f := range r.Fanin {
		if i == 0 {
			out = append(out, goal{f.Label + " start → all active", "≤ 2× slowest single start", fmt.Sprintf("%.1f×", f.ActiveRatio), f.ActiveRatio <= 2})
		}
		out = append(out, goal{f.Label + " weft RSS", "≤ 150 MB", fmt.Sprintf("%.1f MB", f.RSSMB), f.RSSMB <= 150})
		if limit, ok := faninDirectLimits[f.Transport]; ok {
			out = append(out, goal{"start → all listed ÷ direct, " + f.Label, fmt.Sprintf("≤ %.1f×", limit), fmt.Sprintf("%.2f×", f.DirectRatio), f.DirectRatio > 0 && f.DirectRatio <= limit})
			if g, ok := rawFaninGoal(f, limit); ok {
				out = append(out, g)
			}
		}
		if i == 1 {
			out = append(out, goal{fmt.Sprintf("tools/list of %d tools", f.ToolsListed), "≤ 50 ms", fmt.Sprintf("%.1f ms", f.ListP50MS), f.ListP50MS <= 50})
		}
	}
	for _, s := range r.Startup {
		out = append(out, goal{fmt.Sprintf("serve listens, %d upstreams (%d hung)", s.Upstreams, s.Hung), "≤ 100 ms", fmt.Sprintf("%.1f ms", s.ListenMS), s.ListenMS <= 100})
		out = append(out, goal{fmt.Sprintf("mcp-server initialize, %d upstreams (%d hung)", s.Upstreams, s.Hung), "≤ 100 ms", fmt.Sprintf("%.1f ms", s.InitializeMS), s.InitializeMS <= 100})
	}
	for _, c := range r.Churn[min(1, len(r.Churn)):] {
		out = append(out, goal{c.Label + " failed calls", "0", fmt.Sprint(c.Calls.Failed), c.Calls.Failed == 0})
	}
	for _, o := range r.Observe {
		out = append(out, goal{fmt.Sprintf("metrics+audit calls/s c=%d", o.Concurrency), "≥ 0.97× off", fmt.Sprintf("%.3f×", o.Ratio), o.Ratio >= 0.97})
	}
	for _, a := range r.Agents {
		out = append(out, goal{fmt.Sprintf("agent's view %s/s c=%d", a.Op, a.Concurrency), "≥ 0.95× /mcp", fmt.Sprintf("%.3f×", a.Ratio), a.Ratio >= 0.95})
	}
	return out
}

// faninDirectLimits are the performance goals' limits on start → all listed through
// weft ÷ the direct path, by the fan-in row's transport.
var faninDirectLimits = map[string]float64{"stdio": 1.2, "http": 1.5}

// overheadGoals judges one overhead row; a default client's goals are
// named as such, beside the pinned client's.
func overheadGoals(o overheadRow) []goal {
	var out []goal
	switch {
	case o.Transport != "stdio":
		out = serveGoals(o)
	case o.Concurrency == 64:
		out = []goal{{o.Transport + " throughput c=64", "≥ 0.80× direct", fmt.Sprintf("%.2f×", o.Ratio), o.Ratio >= 0.8}}
	case o.Concurrency == 1:
		out = []goal{{o.Transport + " added p50 c=1", "≤ 0.30 ms", fmt.Sprintf("%.3f ms", o.AddedP50MS), o.AddedP50MS <= 0.3}}
	}
	if o.Client == clientDefault {
		for i := range out {
			out[i].Name += ", default client"
		}
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printReport prints one aligned table per scenario, then the goals.
func printReport(w io.Writer, r *result) {
	fmt.Fprintf(w, "machine: %d × %s, %s, load average at start %s\n", r.Machine.NProc, r.Machine.CPU, r.Machine.GoVersion, r.Machine.LoadAvg)
	if len(r.WeftEnv) > 0 {
		fmt.Fprintf(w, "weft environment: %s\n", strings.Join(r.WeftEnv, " "))
	}
	if r.Short {
		fmt.Fprintln(w, "mode: --short (smoke counts; figures are not representative)")
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	if len(r.Overhead) > 0 {
		fmt.Fprintln(tw, "\n1. call overhead (echo)\ttransport\tclient\trevision weft/direct\tconc\tcalls\tfailed d/w\tdirect p50 ms\tweft p50 ms\tdirect p99 ms\tweft p99 ms\tdirect calls/s\tweft calls/s\tweft ÷ direct\tadded p50 ms\t")
		for _, o := range r.Overhead {
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%d\t%d\t%d/%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\t%.2f×\t%.3f\t\n", o.Transport, o.Client, o.Revision+"/"+o.DirectRev, o.Concurrency, o.Weft.Calls, o.Direct.Failed, o.Weft.Failed,
				o.Direct.P50MS, o.Weft.P50MS, o.Direct.P99MS, o.Weft.P99MS, o.Direct.CallsPerSec, o.Weft.CallsPerSec, o.Ratio, o.AddedP50MS)
		}
	}
	printCosts(tw, r.Overhead)
	if len(r.Fanin) > 0 {
		fmt.Fprintln(tw, "\n2. fan-in\tupstreams\ttools listed\tstart→all active ms\tweft CPU ms\tslowest single ms\tratio\tweft RSS MB\tpeak RSS MB\ttools/list p50 ms\ttools/list max ms\tclient listed ms\tdirect listed ms\tweft ÷ direct\tdirect client CPU ms\tlast list ms\tits weft / client CPU ms\tper tools/list weft / client CPU ms\t")
		for _, f := range r.Fanin {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.1f\t%.1f×\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.2f×\t%.0f\t%.0f\t%.0f / %.0f\t%.1f / %.1f\t\n", f.Label, f.Upstreams, f.ToolsListed,
				f.ActiveMS, f.StartCPUMS, f.SlowestSingleMS, f.ActiveRatio, f.RSSMB, f.PeakRSSMB, f.ListP50MS, f.ListMaxMS, f.ListedMS, f.DirectMS, f.DirectRatio, f.DirectCPUMS,
				f.LastListMS, f.LastListWeftCPUMS, f.LastListClientCPUMS, f.ListWeftCPUMS, f.ListClientCPUMS)
		}
		printFaninRaw(tw, r.Fanin)
	}
	if len(r.Churn) > 0 {
		fmt.Fprintln(tw, "\n3. churn (c=16, weft serve)\tcalls\tfailed\tp50 ms\tp99 ms\tp99 ÷ quiet\tconfig writes\tchurn servers seen active\t")
		for _, c := range r.Churn {
			ratio := "-"
			if c.P99Ratio > 0 {
				ratio = fmt.Sprintf("%.2f×", c.P99Ratio)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%s\t%d\t%d\t\n", c.Label, c.Calls.Calls, c.Calls.Failed, c.Calls.P50MS, c.Calls.P99MS, ratio, c.ConfigWrites, c.SeenActive)
		}
	}
	if rl := r.Reload; rl != nil {
		fmt.Fprintln(tw, "\n5. reload (weft serve)\trounds\treload p50 ms\treload max ms\tserver's own start p50 ms\tweft's share p50 ms\tof which debounce ms\t")
		fmt.Fprintf(tw, "add one stdio server\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t\n", rl.Rounds, rl.ReloadP50MS, rl.ReloadMaxMS, rl.ConnectP50MS, rl.WeftP50MS, rl.DebounceMS)
	}
	if len(r.Startup) > 0 {
		fmt.Fprintln(tw, "\n6. startup\tupstreams\thung\tserve listens p50 ms\tmcp-server initialize p50 ms\t")
		for _, s := range r.Startup {
			fmt.Fprintf(tw, "\t%d\t%d\t%.1f\t%.1f\t\n", s.Upstreams, s.Hung, s.ListenMS, s.InitializeMS)
		}
	}
	if r.Plans != "" {
		fmt.Fprintf(tw, "\n4. plans\t%s\t\n", r.Plans)
	}
	if len(r.Observe) > 0 {
		fmt.Fprintln(tw, "\n6. metrics + audit (http)\tconc\tcalls\tfailed off/on\toff p50 ms\ton p50 ms\toff calls/s\ton calls/s\ton ÷ off\tadded p50 ms\tweft CPU µs/call off/on\t")
		for _, r := range r.Observe {
			fmt.Fprintf(tw, "\t%d\t%d\t%d/%d\t%.3f\t%.3f\t%.0f\t%.0f\t%.3f×\t%.3f\t%.0f/%.0f\t\n", r.Concurrency, r.On.Calls, r.Off.Failed, r.On.Failed,
				r.Off.P50MS, r.On.P50MS, r.Off.CallsPerSec, r.On.CallsPerSec, r.Ratio, r.AddedP50MS, r.OffCost.GatewayUS, r.OnCost.GatewayUS)
		}
	}
	if len(r.Agents) > 0 {
		fmt.Fprintln(tw, "\n7. agent's view (http)\top\tconc\tcalls\tfailed /mcp/agent\t/mcp p50 ms\tagent p50 ms\t/mcp per s\tagent per s\tagent ÷ /mcp\tadded p50 ms\t")
		for _, r := range r.Agents {
			fmt.Fprintf(tw, "\t%s\t%d\t%d\t%d/%d\t%.3f\t%.3f\t%.0f\t%.0f\t%.3f×\t%.3f\t\n", r.Op, r.Concurrency, r.Agent.Calls, r.Default.Failed, r.Agent.Failed,
				r.Default.P50MS, r.Agent.P50MS, r.Default.CallsPerSec, r.Agent.CallsPerSec, r.Ratio, r.AddedP50MS)
		}
	}
	_ = tw.Flush()
	printGoals(w, r)
}

// printCosts prints CPU per call by process and memory after the load, for
// every overhead row.
func printCosts(tw io.Writer, rows []overheadRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(tw, "\n1b. cost per call (CPU µs)\ttransport\tclient\tconc\tdirect client\tdirect upstream\tweft client\tweft gateway\tweft upstream\tgateway RSS MB\tgateway peak MB\tupstream RSS MB\t")
	for _, o := range rows {
		d, wc := o.DirectCost, o.WeftCost
		fmt.Fprintf(tw, "\t%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t\n", o.Transport, o.Client, o.Concurrency,
			d.ClientUS, d.UpstreamUS, wc.ClientUS, wc.GatewayUS, wc.UpstreamUS, wc.GatewayRSSMB, wc.GatewayPeakMB, wc.UpstreamRSSMB)
	}
}

func printGoals(w io.Writer, r *result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\ngoal\ttarget\tmeasured\tmet")
	for _, g := range r.Goals {
		met := "yes"
		if !g.Met {
			met = "NO"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", g.Name, g.Target, g.Measured, met)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "\nprocesses left behind and killed: %d\n", r.Orphans)
	for _, o := range r.Overhead {
		for _, e := range o.Errors {
			fmt.Fprintf(w, "overhead error (%s %s c=%d): %s\n", o.Transport, o.Client, o.Concurrency, e)
		}
	}
	for _, c := range r.Churn {
		for _, e := range c.Errors {
			fmt.Fprintf(w, "churn error (%s): %s\n", c.Label, e)
		}
	}
	if r.Error != "" {
		fmt.Fprintln(w, "error: "+r.Error)
	}
}
