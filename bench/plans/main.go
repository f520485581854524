//go:build linux

// Command plans measures the plan executor on DAG shapes and
// prints a Markdown table: wall time against the critical path with a
// sleeping in-process tool, scheduler overhead per step with a zero-time
// tool, and checkpoint cost per step.
//
//	go run ./bench/plans
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/toolset"
)

// sleeper is an in-process tool: sleep {us} waits that many microseconds and
// returns a small structured result, as a real tool would.
type sleeper struct{}

func (sleeper) Tools() []toolset.Tool { return []toolset.Tool{{Name: "sleep"}} }

func (sleeper) CallTool(ctx context.Context, _ string, args map[string]any) (*mcp.CallToolResult, error) {
	us, _ := args["us"].(json.Number).Int64()
	if us > 0 {
		t := time.NewTimer(time.Duration(us) * time.Microsecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &mcp.CallToolResult{StructuredContent: map[string]any{"ok": true, "slept_us": us, "note": "a result of about a hundred bytes, as a small real tool gives"}}, nil
}

func main() {
	shapes := []shape{
		chain(100, 50*time.Millisecond),
		fanOut(100, 200*time.Millisecond),
		diamond(20, 200*time.Millisecond),
		straggler(time.Second),
		randomDAG(200, 20*time.Millisecond, 100*time.Millisecond),
	}
	dir, err := os.MkdirTemp("", "weft-bench-plans-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average at start: %s\n", strings.Fields(string(b))[0])
	}
	fmt.Println("| shape | steps | critical path | sleeps along it, no scheduler | wall | critical ÷ wall | no-scheduler ÷ wall | overhead µs/step (wall) | overhead µs/step (CPU) | checkpoint µs/step | fsync'd checkpoint µs/step | checkpoint bytes (last) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range shapes {
		row(s, dir)
	}
}

func row(s shape, dir string) {
	crit, path := s.critical()
	wall := best(5, func() time.Duration { return timed(s.build(false), s.width(), nil) })
	floor := best(5, func() time.Duration { return sleepAlong(path) })
	overhead := best(5, func() time.Duration { return timed(s.build(true), s.width(), nil) })
	cpu := cpuTime()
	const cpuRuns = 20
	for range cpuRuns {
		timed(s.build(true), s.width(), nil)
	}
	cpu = cpuTime() - cpu
	plain, size := checkpointCost(s, dir, false)
	synced, _ := checkpointCost(s, dir, true)
	fmt.Printf("| %s | %d | %v | %v | %v | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f | %d |\n", s.name, s.steps,
		crit.Round(time.Millisecond), floor.Round(100*time.Microsecond), wall.Round(100*time.Microsecond),
		float64(crit)/float64(wall), float64(floor)/float64(wall),
		perStep(overhead, s.steps), perStep(cpu/cpuRuns, s.steps), perStep(plain, s.steps), perStep(synced, s.steps), size)
}

// checkpointCost runs the zero-time plan with a checkpoint after every
// change and returns the time spent saving and the last checkpoint's size.
func checkpointCost(s shape, dir string, sync bool) (time.Duration, int64) {
	store := &plan.Store{Dir: filepath.Join(dir, fmt.Sprint(s.name, sync)), Sync: sync}
	var spent time.Duration
	save := func(cp *plan.Checkpoint) error {
		t := time.Now()
		err := store.SaveCheckpoint(cp)
		spent += time.Since(t)
		return err
	}
	timed(s.build(true), s.width(), save)
	st, err := os.Stat(filepath.Join(store.Dir, "bench.run.json"))
	if err != nil {
		fail(err)
	}
	return spent, st.Size()
}

func timed(p *plan.Plan, par int, save func(*plan.Checkpoint) error) time.Duration {
	start := time.Now()
	if _, err := plan.Run(context.Background(), sleeper{}, p, plan.Options{MaxParallel: par, Checkpoint: save}); err != nil {
		fail(err)
	}
	return time.Since(start)
}

// sleepAlong calls the sleeping tool for each step of the critical path in
// a plain loop: what the tool's sleeps cost on this machine with no
// scheduler at all (timer wake-ups run late on a loaded machine).
func sleepAlong(path []time.Duration) time.Duration {
	start := time.Now()
	for _, d := range path {
		args := map[string]any{"us": json.Number(fmt.Sprint(d.Microseconds()))}
		if _, err := (sleeper{}).CallTool(context.Background(), "sleep", args); err != nil {
			fail(err)
		}
	}
	return time.Since(start)
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func best(n int, f func() time.Duration) time.Duration {
	b := f()
	for range n - 1 {
		b = min(b, f())
	}
	return b
}

func perStep(d time.Duration, steps int) float64 {
	return float64(d.Microseconds()) / float64(steps)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/plans:", err)
	os.Exit(1)
}
