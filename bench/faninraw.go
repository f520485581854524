//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// faninRaw is the fan-in row again with the raw client (rawclient.go) in
// place of go-sdk's, on both paths, in the same run: what is left of the
// ratio once the client's own decoding of every tool is taken out.
type faninRaw struct {
	// RawDirectMS is the direct path with raw clients: one per upstream,
	// all at once, from the first connect to the last tool listed.
	RawDirectMS    float64 `json:"raw_direct_start_to_all_listed_ms,omitempty"`
	RawDirectCPUMS float64 `json:"raw_direct_client_cpu_ms,omitempty"`
	// RawActiveMS and RawListedMS are a second start of weft with the same
	// upstreams: launch → all listed in weft, then launch → the raw client
	// has listed every tool through weft. RawStartCPUMS is weft's CPU in
	// the first: it includes serving the raw client's handshake, on
	// purpose (the client connects as weft listens, as one launched with
	// weft would); that is about 1 ms, under /proc's 10 ms tick.
	RawActiveMS   float64 `json:"raw_start_to_all_active_ms,omitempty"`
	RawListedMS   float64 `json:"raw_start_to_client_listed_ms,omitempty"`
	RawStartCPUMS float64 `json:"raw_weft_cpu_to_all_listed_ms,omitempty"`
	// RawLastListMS is RawListedMS − RawActiveMS, with the CPU weft and the
	// client spent in it.
	RawLastListMS          float64 `json:"raw_last_list_ms,omitempty"`
	RawLastListWeftCPUMS   float64 `json:"raw_last_list_weft_cpu_ms,omitempty"`
	RawLastListClientCPUMS float64 `json:"raw_last_list_client_cpu_ms,omitempty"`
	RawDirectRatio         float64 `json:"raw_direct_ratio,omitempty"` // RawListedMS ÷ RawDirectMS
}

// rawFaninHTTP measures the raw client's fan-in row for HTTP upstreams at
// urls, which weft reaches as entries: the direct path, then weft's.
func rawFaninHTTP(ctx context.Context, w *workspace, urls []string, entries []entry, row *faninRow) error {
	if err := rawDirect(ctx, urls, row); err != nil {
		return err
	}
	return rawThroughWeft(ctx, w, "fanin-http-raw", entries, row)
}

// launched is weft started for a fan-in row, with the client that lists
// through it.
type launched[C any] struct {
	p      *proc
	url    string
	client C
	t0     time.Time     // when weft was launched
	active time.Duration // launch → every tool listed in weft's status
}

// launchFanin writes cfg for entries and starts weft with it. The client
// (dial) connects as soon as weft listens, as a client launched with weft
// would, while the upstreams connect; the start ends when weft's
// /readyz?all says every server is active with its tools listed, as a
// script would wait (the caller's listUntil checks that the client then
// lists them all). The caller stops l.p and closes l.client, also when err
// is set.
func launchFanin[C any](ctx context.Context, w *workspace, name, cfg string, entries []entry, dial func(context.Context, string) (C, error)) (l launched[C], err error) {
	if err := writeConfig(cfg, entries); err != nil {
		return l, err
	}
	l.t0 = time.Now()
	if l.p, l.url, err = w.startServe(ctx, "weft-"+name, cfg); err != nil {
		l.p = nil
		return l, err
	}
	type dialed struct {
		c   C
		err error
	}
	done := make(chan dialed, 1)
	go func() {
		c, err := dial(ctx, l.url)
		done <- dialed{c, err}
	}()
	waitErr := waitReady(ctx, adminBase(l.url))
	l.active = time.Since(l.t0)
	d := <-done
	l.client = d.c
	return l, errors.Join(waitErr, d.err)
}

// rawConfig is where the raw client's start of weft reads its config: a
// directory of its own, so that it starts without the pins (kept beside
// the config) the go-sdk row's start saved, as that start did.
func rawConfig(w *workspace, name string) (string, error) {
	dir := w.path(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return filepath.Join(dir, "weft.toml"), nil
}

// rawDirect is the direct path with raw clients: each connects to its
// upstream and lists all its tools, all at once.
func rawDirect(ctx context.Context, urls []string, row *faninRow) error {
	return rawDirectOf(ctx, len(urls), row, func(i int) (*rawClient, error) { return dialRaw(ctx, urls[i]) })
}

// rawLister is a raw client of either transport.
type rawLister interface {
	listAll(context.Context) (int, error)
	close()
}

// rawDirectOf runs n raw clients (dial) at once, each listing all its
// upstream's tools, and records the time from the first dial to the last
// tool listed and the bench's CPU meanwhile. Ending the sessions is not
// timed.
func rawDirectOf[C rawLister](ctx context.Context, n int, row *faninRow, dial func(i int) (C, error)) error {
	clients := make([]C, n)
	dialed := make([]bool, n)
	counts := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	cpu0 := readCPU(roles{}).client
	t0 := time.Now()
	for i := range n {
		wg.Go(func() {
			if clients[i], errs[i] = dial(i); errs[i] == nil {
				dialed[i] = true
				counts[i], errs[i] = clients[i].listAll(ctx)
			}
		})
	}
	wg.Wait()
	row.RawDirectMS = ms(time.Since(t0))
	row.RawDirectCPUMS = ms(readCPU(roles{}).client - cpu0)
	for i, c := range clients {
		if dialed[i] {
			wg.Go(c.close)
		}
	}
	wg.Wait()
	return errors.Join(append(errs, shortList(counts, row))...)
}

// shortList says so when the direct path's lists (counts) hold fewer tools
// than row's upstreams have.
func shortList(counts []int, row *faninRow) error {
	total := 0
	for _, n := range counts {
		total += n
	}
	if want := row.Upstreams * row.ToolsEach; total < want {
		return fmt.Errorf("the raw direct path listed %d tools, want %d", total, want)
	}
	return nil
}

// rawFaninStdio measures the raw client's fan-in row for n stdio
// upstreams (bin with args), which weft starts as entries.
func rawFaninStdio(ctx context.Context, w *workspace, n int, entries []entry, row *faninRow, bin string, args ...string) error {
	if err := rawDirectStdio(ctx, w, n, row, bin, args...); err != nil {
		return err
	}
	return rawThroughWeft(ctx, w, "fanin-stdio-raw", entries, row)
}

// rawThroughWeft starts weft with entries, as measureFanin does, and times
// launch → the raw client (connected as soon as weft listens) has listed
// every tool through it.
func rawThroughWeft(ctx context.Context, w *workspace, name string, entries []entry, row *faninRow) error {
	cfg, err := rawConfig(w, name)
	if err != nil {
		return err
	}
	l, err := launchFanin(ctx, w, name, cfg, entries, dialRaw)
	if l.p != nil {
		defer l.p.stop()
	}
	if l.client != nil {
		defer l.client.close()
	}
	if err != nil {
		return err
	}
	p, t0 := l.p, l.t0
	row.RawActiveMS = ms(l.active)
	if row.RawStartCPUMS, err = cpuMS(p.pid()); err != nil {
		return err
	}
	client0 := readCPU(roles{}).client
	err = listUntil(ctx, len(entries)*row.ToolsEach, l.client.listAll)
	row.RawListedMS = ms(time.Since(t0))
	row.RawLastListClientCPUMS = ms(readCPU(roles{}).client - client0)
	if err != nil {
		return err
	}
	weft1, err := cpuMS(p.pid())
	row.RawLastListWeftCPUMS = weft1 - row.RawStartCPUMS
	row.RawLastListMS = row.RawListedMS - row.RawActiveMS
	if row.RawDirectMS > 0 {
		row.RawDirectRatio = row.RawListedMS / row.RawDirectMS
	}
	return err
}

// printFaninRaw prints the raw client's fan-in rows, if any were measured.
func printFaninRaw(tw io.Writer, rows []faninRow) {
	header := false
	for _, f := range rows {
		if f.RawDirectMS == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "\n2b. fan-in, raw client\tstart→all active ms\tweft CPU ms\tclient listed ms\tdirect listed ms\tweft ÷ direct\tdirect client CPU ms\tlast list ms\tits weft / client CPU ms\t")
			header = true
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.2f×\t%.0f\t%.0f\t%.0f / %.0f\t\n", f.Label, f.RawActiveMS, f.RawStartCPUMS, f.RawListedMS, f.RawDirectMS,
			f.RawDirectRatio, f.RawDirectCPUMS, f.RawLastListMS, f.RawLastListWeftCPUMS, f.RawLastListClientCPUMS)
	}
}

// rawFaninGoal is the fan-in goal judged on the raw client's row.
func rawFaninGoal(f faninRow, limit float64) (goal, bool) {
	if f.RawDirectMS == 0 {
		return goal{}, false
	}
	return goal{"start → all listed ÷ direct, " + f.Label + ", raw client", fmt.Sprintf("≤ %.1f×", limit), fmt.Sprintf("%.2f×", f.RawDirectRatio), f.RawDirectRatio > 0 && f.RawDirectRatio <= limit}, true
}

// maxRelists bounds listUntil's lists.
const maxRelists = 100

// listUntil lists with list until it holds at least want tools. The admin
// status shows a catalog as soon as weft has built it, a moment before the
// face serves it all (weft's face takes each catalog after it is built),
// so a list right then can come back short; a client told of the change
// (tools/list_changed) lists again, and so does this one.
func listUntil(ctx context.Context, want int, list func(context.Context) (int, error)) error {
	n := 0
	for range maxRelists {
		var err error
		if n, err = list(ctx); err != nil || n >= want {
			return err
		}
	}
	return fmt.Errorf("listed %d tools through weft %d times, want at least %d", n, maxRelists, want)
}
