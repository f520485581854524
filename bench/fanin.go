//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// faninRow is one fan-in measurement (scenario 2).
type faninRow struct {
	Label           string  `json:"label"`
	Transport       string  `json:"transport"` // stdio or http
	Upstreams       int     `json:"upstreams"`
	ToolsEach       int     `json:"tools_each"`
	ToolsListed     int     `json:"tools_listed"`
	ActiveMS        float64 `json:"start_to_all_active_ms"`
	SlowestSingleMS float64 `json:"slowest_single_start_ms"`
	ActiveRatio     float64 `json:"active_ratio"` // ActiveMS ÷ SlowestSingleMS
	StartCPUMS      float64 `json:"weft_cpu_to_all_listed_ms"`
	RSSMB           float64 `json:"rss_mb"`
	PeakRSSMB       float64 `json:"peak_rss_mb"`
	ListP50MS       float64 `json:"tools_list_p50_ms"`
	ListMaxMS       float64 `json:"tools_list_max_ms"`
	// ListedMS is weft's figure beside the direct path: from launching
	// weft to a client having listed every tool through it.
	ListedMS float64 `json:"start_to_client_listed_ms"`
	DirectMS float64 `json:"direct_start_to_all_listed_ms"`
	// DirectCPUMS is the direct client's CPU until all listed, beside
	// StartCPUMS (weft's); neither counts the upstreams' own CPU.
	DirectCPUMS float64 `json:"direct_client_cpu_ms"`
	DirectRatio float64 `json:"direct_ratio"` // ListedMS ÷ DirectMS
	// LastListMS is the part of ListedMS after every tool is listed in
	// weft (ListedMS − ActiveMS): the client's one list of the catalog
	// through weft. The CPU weft and the client (the bench) spent in it
	// are beside it, to tell whose it is.
	LastListMS          float64 `json:"last_list_ms"`
	LastListWeftCPUMS   float64 `json:"last_list_weft_cpu_ms"`
	LastListClientCPUMS float64 `json:"last_list_client_cpu_ms"`
	// ListWeftCPUMS and ListClientCPUMS are the CPU weft and the client
	// spent per list of the catalog in the repeated lists after it
	// (ListP50MS), whose pages weft may answer from the first.
	ListWeftCPUMS   float64 `json:"tools_list_weft_cpu_ms"`
	ListClientCPUMS float64 `json:"tools_list_client_cpu_ms"`
	faninRaw
}

// fanin runs scenario 2: many stdio upstreams, then many tools over HTTP.
func fanin(ctx context.Context, w *workspace, o options) ([]faninRow, error) {
	n, tools := o.faninStdio()
	stdio, err := faninStdio(ctx, w, n, tools, o)
	if err != nil {
		return nil, err
	}
	o.progress("fan-in stdio done")
	n, tools = o.faninHTTP()
	httpRow, err := faninHTTP(ctx, w, n, tools, o)
	if err != nil {
		return []faninRow{stdio}, err
	}
	o.progress("fan-in http done")
	return []faninRow{stdio, httpRow}, nil
}

// faninStdio: weft with n stdio upstreams of tools tools each.
func faninStdio(ctx context.Context, w *workspace, n, tools int, o options) (faninRow, error) {
	row := faninRow{Label: fmt.Sprintf("%d stdio × %d tools", n, tools), Transport: "stdio", Upstreams: n, ToolsEach: tools}
	args := []string{"--tools", strconv.Itoa(tools)}
	single, err := slowest(o.singles(), connectAndList(ctx, func() (*mcp.ClientSession, error) {
		return w.connectStdio(ctx, "single-stdio", w.benchserver, args...)
	}))
	if err != nil {
		return row, err
	}
	row.SlowestSingleMS = ms(single)
	connects := make([]func() (*mcp.ClientSession, error), n)
	for i := range connects {
		connects[i] = func() (*mcp.ClientSession, error) {
			return w.connectStdio(ctx, fmt.Sprintf("direct-s%03d", i), w.benchserver, args...)
		}
	}
	if err := directFanin(ctx, connects, &row); err != nil {
		return row, err
	}
	entries := make([]entry, n)
	for i := range entries {
		entries[i] = entry{name: fmt.Sprintf("s%03d", i), target: w.benchserver, args: args}
	}
	if err := measureFanin(ctx, w, "fanin-stdio", entries, &row, o); err != nil {
		return row, err
	}
	return row, rawFaninStdio(ctx, w, n, entries, &row, w.benchserver, args...)
}

// faninHTTP: weft with n HTTP upstreams of tools tools each; the upstreams
// run before weft starts, so a single start is a connect and a full list.
func faninHTTP(ctx context.Context, w *workspace, n, tools int, o options) (faninRow, error) {
	row := faninRow{Label: fmt.Sprintf("%d http × %d tools", n, tools), Transport: "http", Upstreams: n, ToolsEach: tools}
	urls, stop, err := startHTTPUpstreams(ctx, w, n, tools)
	defer stop()
	if err != nil {
		return row, err
	}
	var worst time.Duration
	for _, u := range urls {
		d, err := slowest(1, connectAndList(ctx, func() (*mcp.ClientSession, error) { return connectHTTP(ctx, u) }))
		if err != nil {
			return row, err
		}
		worst = max(worst, d)
	}
	row.SlowestSingleMS = ms(worst)
	connects := make([]func() (*mcp.ClientSession, error), n)
	for i, u := range urls {
		connects[i] = func() (*mcp.ClientSession, error) { return connectHTTP(ctx, u) }
	}
	if err := directFanin(ctx, connects, &row); err != nil {
		return row, err
	}
	entries := make([]entry, n)
	for i, u := range urls {
		entries[i] = entry{name: fmt.Sprintf("h%02d", i), target: u}
	}
	if err := measureFanin(ctx, w, "fanin-http", entries, &row, o); err != nil {
		return row, err
	}
	return row, rawFaninHTTP(ctx, w, urls, entries, &row)
}

// startHTTPUpstreams starts n HTTP upstreams and returns their endpoints and
// a func that stops them all.
func startHTTPUpstreams(ctx context.Context, w *workspace, n, tools int) ([]string, func(), error) {
	var procs []*proc
	stop := func() { stopAll(procs) }
	for i := range n {
		p, err := w.start(fmt.Sprintf("upstream-h%02d", i), w.benchserver, "--http", "127.0.0.1:0", "--tools", strconv.Itoa(tools))
		if err != nil {
			return nil, stop, err
		}
		procs = append(procs, p)
	}
	urls := make([]string, n)
	for i, p := range procs {
		u, err := p.waitURL(ctx, startTimeout)
		if err != nil {
			return nil, stop, err
		}
		urls[i] = u
	}
	return urls, stop, nil
}

// stopAll stops processes in parallel.
func stopAll(procs []*proc) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.stop)
	}
	wg.Wait()
}

// measureFanin starts weft with entries, times start → all active and
// listed (weft's /readyz?all), then measures tools/list and weft's memory.
func measureFanin(ctx context.Context, w *workspace, name string, entries []entry, row *faninRow, o options) error {
	l, err := launchFanin(ctx, w, name, w.path(name+".toml"), entries, connectHTTP)
	if l.p != nil {
		defer l.p.stop()
	}
	if l.client != nil {
		defer l.client.Close()
	}
	if err != nil {
		return err
	}
	p, cs, t0, url := l.p, l.client, l.t0, l.url
	row.ActiveMS = ms(l.active)
	if row.StartCPUMS, err = cpuMS(p.pid()); err != nil {
		return err
	}
	if row.SlowestSingleMS > 0 {
		row.ActiveRatio = row.ActiveMS / row.SlowestSingleMS
	}
	// The direct path ends when its client holds every tool, so weft's
	// figure beside it ends when that client has listed them all through
	// weft. Both start when the launcher starts (weft's process here, the
	// children or connects there).
	if err := lastList(ctx, cs, p.pid(), row); err != nil {
		return err
	}
	row.ListedMS = ms(time.Since(t0))
	row.LastListMS = row.ListedMS - row.ActiveMS
	if row.DirectMS > 0 {
		row.DirectRatio = row.ListedMS / row.DirectMS
	}
	if err := measureList(ctx, url, p.pid(), row, o.listRepeats()); err != nil {
		return err
	}
	row.RSSMB, row.PeakRSSMB, err = rss(p.pid())
	return err
}

// lastList is the client's list of the whole catalog through weft once
// weft has listed every tool, with the CPU weft (pid) and the bench spent
// in it. A list that comes back short (the face had not yet taken the
// catalog the status showed) is listed again, as by a client told of the
// change (listUntil).
func lastList(ctx context.Context, cs *mcp.ClientSession, pid int, row *faninRow) error {
	client0, weft0 := readCPU(roles{}).client, row.StartCPUMS
	list := func(ctx context.Context) (int, error) { return listTools(ctx, cs) }
	if err := listUntil(ctx, row.Upstreams*row.ToolsEach, list); err != nil {
		return err
	}
	row.LastListClientCPUMS = ms(readCPU(roles{}).client - client0)
	weft1, err := cpuMS(pid)
	row.LastListWeftCPUMS = weft1 - weft0
	return err
}

// measureList lists weft's whole catalog k times over HTTP, and the CPU
// weft (pid) and the client spent per list.
func measureList(ctx context.Context, url string, pid int, row *faninRow, k int) error {
	cs, err := connectHTTP(ctx, url)
	if err != nil {
		return err
	}
	defer cs.Close()
	weft0, err := cpuMS(pid)
	if err != nil {
		return err
	}
	client0 := readCPU(roles{}).client
	defer func() {
		row.ListClientCPUMS = ms(readCPU(roles{}).client-client0) / float64(k)
		if weft1, err := cpuMS(pid); err == nil {
			row.ListWeftCPUMS = (weft1 - weft0) / float64(k)
		}
	}()
	var lat []time.Duration
	for range k {
		t0 := time.Now()
		n, err := listTools(ctx, cs)
		if err != nil {
			return err
		}
		lat = append(lat, time.Since(t0))
		row.ToolsListed = n
	}
	slices.Sort(lat)
	row.ListP50MS, row.ListMaxMS = ms(percentile(lat, 50)), ms(lat[len(lat)-1])
	return nil
}

// slowest runs f k times and returns the longest run.
func slowest(k int, f func() error) (time.Duration, error) {
	var worst time.Duration
	for range k {
		t0 := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		worst = max(worst, time.Since(t0))
	}
	return worst, nil
}

// connectAndList is one upstream's own start as a client sees it: connect
// (for stdio, launch), handshake and list every tool.
func connectAndList(ctx context.Context, connect func() (*mcp.ClientSession, error)) func() error {
	return func() error {
		cs, err := connect()
		if err != nil {
			return err
		}
		defer cs.Close()
		_, err = listTools(ctx, cs)
		return err
	}
}

// directFanin is the direct path for scenario 2: one go-sdk client process
// (the bench) connecting to every upstream itself, in parallel (for stdio,
// spawning each child as weft would), and listing all their tools. It
// records the time from the first connect to the last tool listed and the
// bench's own CPU meanwhile; closing the sessions is not timed.
func directFanin(ctx context.Context, connects []func() (*mcp.ClientSession, error), row *faninRow) error {
	sessions := make([]*mcp.ClientSession, len(connects))
	errs := make([]error, len(connects))
	var wg sync.WaitGroup
	cpu0 := readCPU(roles{}).client
	t0 := time.Now()
	for i, connect := range connects {
		wg.Go(func() {
			sessions[i], errs[i] = connect()
			if errs[i] == nil {
				_, errs[i] = listTools(ctx, sessions[i])
			}
		})
	}
	wg.Wait()
	row.DirectMS = ms(time.Since(t0))
	row.DirectCPUMS = ms(readCPU(roles{}).client - cpu0)
	for _, cs := range sessions {
		if cs != nil {
			wg.Go(func() { _ = cs.Close() })
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}
