//go:build linux

// Command bench measures weft against the direct path and at scale (issue
// 8) on Linux (it reads /proc): call overhead over stdio and Streamable HTTP, fan-in of many upstreams,
// and calls under config churn. It builds weft and a go-sdk upstream once,
// starts everything it needs on loopback, stops all of it, and prints a
// table (or JSON with --json).
//
//	go run ./bench [--short] [--json] [--scenario overhead|fanin|churn|reload|plans|observe|startup|agents] [--weft-env K=V]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// scenarios in the order they run.
var scenarios = []string{"overhead", "fanin", "churn", "reload", "plans", "observe", "startup", "agents"}

// result is everything one bench run measured.
type result struct {
	Machine  machine       `json:"machine"`
	Short    bool          `json:"short"`
	WeftEnv  []string      `json:"weft_env,omitempty"`
	Overhead []overheadRow `json:"overhead,omitempty"`
	Fanin    []faninRow    `json:"fanin,omitempty"`
	Churn    []churnRow    `json:"churn,omitempty"`
	Reload   *reloadRow    `json:"reload,omitempty"`
	Plans    string        `json:"plans,omitempty"`
	Observe  []observeRow  `json:"observe,omitempty"`
	Startup  []startupRow  `json:"startup,omitempty"`
	Agents   []agentsRow   `json:"agents,omitempty"`
	Goals    []goal        `json:"goals"`
	Orphans  int           `json:"orphans_killed"`
	Error    string        `json:"error,omitempty"`
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := options{log: stderr}
	fs.BoolVar(&o.short, "short", false, "smoke mode: small counts and durations (under a minute)")
	fs.BoolVar(&o.json, "json", false, "print the results as JSON")
	fs.StringVar(&o.scenario, "scenario", "", "run one scenario: overhead, fanin, churn, reload, plans, observe, startup or agents (default: all)")
	fs.Var(&o.weftEnv, "weft-env", "K=V added to weft's environment only, to compare tunings (repeatable), e.g. GOGC=400")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.scenario != "" && !slices.Contains(scenarios, o.scenario) {
		fmt.Fprintf(stderr, "bench: unknown scenario %q; use one of overhead, fanin, churn, reload, plans, observe, startup, agents\n", o.scenario)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := measure(ctx, o)
	if err != nil {
		res.Error = err.Error()
	}
	if o.json {
		_ = writeJSON(stdout, res)
	} else {
		printReport(stdout, res)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench: "+err.Error())
		return 1
	}
	if res.Orphans > 0 {
		fmt.Fprintf(stderr, "bench: %d processes outlived their stop and were killed\n", res.Orphans)
		return 1
	}
	return 0
}

// measure builds the binaries, runs the selected scenarios and cleans up
// everything it started, whatever happens.
func measure(ctx context.Context, o options) (res *result, err error) {
	res = &result{Machine: describeMachine(), Short: o.short, WeftEnv: o.weftEnv}
	o.progress("building weft and the upstream")
	w, err := buildWorkspace(ctx)
	if err != nil {
		return res, err
	}
	w.weftEnv = o.weftEnv
	defer func() {
		res.Orphans = w.cleanup(err != nil && ctx.Err() == nil)
		res.Goals = goals(res)
	}()
	if o.wants("overhead") {
		if res.Overhead, err = overhead(ctx, w, o); err != nil {
			return res, fmt.Errorf("overhead: %w", err)
		}
	}
	if o.wants("fanin") {
		if res.Fanin, err = fanin(ctx, w, o); err != nil {
			return res, fmt.Errorf("fan-in: %w", err)
		}
	}
	if o.wants("churn") {
		if res.Churn, err = churn(ctx, w, o); err != nil {
			return res, fmt.Errorf("churn: %w", err)
		}
	}
	if o.wants("reload") {
		if res.Reload, err = reload(ctx, w, o); err != nil {
			return res, fmt.Errorf("reload: %w", err)
		}
	}
	if o.wants("startup") {
		if res.Startup, err = startup(ctx, w, o); err != nil {
			return res, fmt.Errorf("startup: %w", err)
		}
	}
	if o.wants("plans") {
		res.Plans = "see docs/guides/plans.md"
	}
	if o.wants("observe") {
		if res.Observe, err = observeCost(ctx, w, o); err != nil {
			return res, fmt.Errorf("observe: %w", err)
		}
	}
	if o.wants("agents") {
		if res.Agents, err = agentsCost(ctx, w, o); err != nil {
			return res, fmt.Errorf("agents: %w", err)
		}
	}
	return res, nil
}
