//go:build linux

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestGoalsJudgeEachFigureAgainstItsTarget(t *testing.T) {
	r := &result{
		Overhead: []overheadRow{
			{Transport: "stdio", Client: clientPinned, Concurrency: 1, AddedP50MS: 0.2},
			{Transport: "stdio", Client: clientPinned, Concurrency: 64, Ratio: 0.5},
			{Transport: "stdio", Client: clientDefault, Concurrency: 1, AddedP50MS: 0.4},
			{Transport: "stdio", Client: clientDefault, Concurrency: 64, Ratio: 0.9},
		},
		Fanin: []faninRow{
			{Label: "stdio", Transport: "stdio", ActiveRatio: 1.5, RSSMB: 200, DirectRatio: 1.3},
			{Label: "http", Transport: "http", RSSMB: 40, ToolsListed: 10002, ListP50MS: 60, DirectRatio: 1.4},
		},
		Churn: []churnRow{{Label: "quiet"}, {Label: "churn", Calls: stats{Failed: 1}}},
	}
	want := map[string]bool{
		"stdio added p50 c=1":                   true,
		"stdio throughput c=64":                 false,
		"stdio added p50 c=1, default client":   false,
		"stdio throughput c=64, default client": true,
		"stdio start → all active":              true,
		"stdio weft RSS":                        false,
		"http weft RSS":                         true,
		"start → all listed ÷ direct, stdio":    false, // 1.3 > 1.2
		"start → all listed ÷ direct, http":     true,  // 1.4 ≤ 1.5
		"tools/list of 10002 tools":             false,
		"churn failed calls":                    false,
	}
	checkGoals(t, goals(r), want)
}

// checkGoals asserts that got is exactly the goals named in want, each
// judged met or not as want says.
func checkGoals(t *testing.T, got []goal, want map[string]bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d goals, want %d: %+v", len(got), len(want), got)
	}
	for _, g := range got {
		met, ok := want[g.Name]
		if !ok {
			t.Errorf("unexpected goal %q", g.Name)
			continue
		}
		if g.Met != met {
			t.Errorf("goal %q met = %v, want %v (measured %s)", g.Name, g.Met, met, g.Measured)
		}
	}
}

func TestReportPrintsEveryScenarioAndFailedGoals(t *testing.T) {
	r := &result{
		Overhead: []overheadRow{{Transport: "http", Client: clientDefault, Revision: "2026-07-28", DirectRev: "2025-11-25", Concurrency: 64, Ratio: 0.5, Errors: []string{"weft: boom"}}},
		Churn:    []churnRow{{Label: "quiet"}},
		Fanin:    []faninRow{{Label: "10 http × 1000 tools", Transport: "http", ListedMS: 300, DirectMS: 150, DirectRatio: 2}},
		Plans:    "see docs/guides/plans.md",
	}
	r.Goals = goals(r)
	var b bytes.Buffer
	printReport(&b, r)
	for _, s := range []string{"1. call overhead", "3. churn", "4. plans", "calls/s c=64 ÷ direct-http, HTTP upstream, default client", "2026-07-28/2025-11-25", "NO", "1b. cost per call", "direct listed ms", "start → all listed ÷ direct, 10 http × 1000 tools", "≤ 1.5×", "2.00×", "overhead error (http default c=64): weft: boom"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, b.String())
		}
	}
}

func TestServeGoalsJudgeIssue18AgainstDirectHTTP(t *testing.T) {
	r := &result{Overhead: []overheadRow{
		{Transport: transportServeStdio, Concurrency: 1, AddedP50MS: 0.04},
		{Transport: transportServeStdio, Concurrency: 64, Ratio: 1.1, WeftCost: cost{GatewayUS: 70, GatewayPeakMB: 39}},
		{Transport: "http", Concurrency: 1, AddedP50MS: 0.2},
		{Transport: "http", Concurrency: 64, Ratio: 0.9, WeftCost: cost{GatewayUS: 259, GatewayPeakMB: 117}},
	}}
	want := map[string]bool{
		"added p50 c=1 vs direct-http, stdio upstream": true,
		"calls/s c=64 ÷ direct-http, stdio upstream":   false, // 1.1 < 1.25
		"gateway CPU per call c=64, stdio upstream":    true,
		"gateway RSS under load, stdio upstream":       true,
		"added p50 c=1 vs direct-http, HTTP upstream":  false,
		"calls/s c=64 ÷ direct-http, HTTP upstream":    true,
		"gateway CPU per call c=64, HTTP upstream":     false,
		"gateway RSS under load, HTTP upstream":        false,
	}
	checkGoals(t, goals(r), want)
}

func TestServeGoalsAreUnmetWithoutCostFigures(t *testing.T) {
	// On an OS without /proc the figures are zero: that must not pass as met.
	for _, g := range serveGoals(overheadRow{Transport: "http", Concurrency: 64, Ratio: 2}) {
		if strings.HasPrefix(g.Name, "gateway") && g.Met {
			t.Errorf("goal %q met with no measurement", g.Name)
		}
	}
}

func TestFaninDirectGoalIsUnmetWithoutADirectFigure(t *testing.T) {
	// A row whose direct path was not measured has no ratio: that must not pass as met.
	for _, g := range goals(&result{Fanin: []faninRow{{Label: "stdio", Transport: "stdio"}, {Label: "http", Transport: "http"}}}) {
		if strings.HasPrefix(g.Name, "start → all listed ÷ direct") && g.Met {
			t.Errorf("goal %q met with no measurement", g.Name)
		}
	}
}
