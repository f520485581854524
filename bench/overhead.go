//go:build linux

package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// overheadRow compares one transport at one concurrency, direct vs weft.
// Transport is "stdio" (`weft mcp-server` vs the client launching the
// upstream), "http" (`weft serve` with an HTTP upstream vs direct-http) or
// "http-stdio" (`weft serve` with a stdio upstream vs direct-http).
type overheadRow struct {
	Transport   string   `json:"transport"`
	Client      string   `json:"client"`          // clientPinned or clientDefault
	Revision    string   `json:"revision"`        // what weft's face negotiated with that client
	DirectRev   string   `json:"direct_revision"` // what the upstream negotiated with it directly
	Concurrency int      `json:"concurrency"`
	Direct      stats    `json:"direct"`
	Weft        stats    `json:"weft"`
	DirectCost  cost     `json:"direct_cost"`
	WeftCost    cost     `json:"weft_cost"`
	Ratio       float64  `json:"throughput_ratio"` // weft ÷ direct calls/s
	AddedP50MS  float64  `json:"added_p50_ms"`
	Errors      []string `json:"errors,omitempty"` // the first few failures, either path
}

// pathPair is a direct session to an upstream and a session to the same
// kind of upstream through weft, over one transport, with the processes
// each path runs in.
type pathPair struct {
	transport              string
	client, revision       string // the client's kind and the revision weft gave it
	directRevision         string // the revision the upstream gave it directly
	direct, weft           caller
	directRoles, weftRoles roles
	upstreamExe            string // to find the upstream weft launched itself
	closers                []func()
	// session and url are weftCaller's session and weft's MCP URL.
	session *mcp.ClientSession
	url     string
	// rounds, when above o.rounds(), is how many alternating rounds
	// measurePair runs, the same calls in all: shorter rounds, so that
	// both paths see the same swings of the machine's load.
	rounds int
}

func (p *pathPair) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

// The two clients scenario 1 measures with: one pinned to 2025-11-25, and
// go-sdk's default client, which asks for its newest revision (2026-07-28)
// first. Both paths of a pair use the same client.
const (
	clientPinned  = "2025-11-25"
	clientDefault = "default"
)

// setupFunc builds one transport's pair of paths for a client asking for
// revision rev ("" for the default client).
type setupFunc func(ctx context.Context, w *workspace, rev string) (*pathPair, error)

// overhead runs scenario 1 on every transport, once per client.
func overhead(ctx context.Context, w *workspace, o options) ([]overheadRow, error) {
	var rows []overheadRow
	for _, setup := range []setupFunc{setupStdio, setupHTTP, setupServeStdio} {
		for _, client := range []string{clientPinned, clientDefault} {
			p, err := setup(ctx, w, revisionOf(client))
			if err != nil {
				if p != nil {
					p.close()
				}
				return rows, err
			}
			p.client = client
			for _, conc := range []int{1, 64} {
				rows = append(rows, measurePair(ctx, p, conc, o))
				o.progress("overhead %s client %s (%s) c=%d done", p.transport, client, p.revision, conc)
			}
			p.close()
		}
	}
	return rows, nil
}

// revisionOf is the revision a client kind asks for; "" lets go-sdk pick.
func revisionOf(client string) string {
	if client == clientDefault {
		return ""
	}
	return client
}

// negotiated is the revision a session agreed on.
func negotiated(cs *mcp.ClientSession) string {
	if r := cs.InitializeResult(); r != nil {
		return r.ProtocolVersion
	}
	return ""
}

// measurePair warms both paths up, then alternates rounds of a fixed number
// of calls so that both see the same background load on a shared machine;
// every other round runs weft's path first, so neither always follows the
// other (a path measured right after a burst of calls meets a busier machine).
func measurePair(ctx context.Context, p *pathPair, conc int, o options) overheadRow {
	n, rounds := o.calls(conc), o.rounds()
	if p.rounds > rounds {
		n, rounds = max(n*rounds/p.rounds, 1), p.rounds
	}
	runCount(ctx, p.direct, 100, conc)
	runCount(ctx, p.weft, 100, conc)
	if p.weftRoles.upstream == 0 && p.weftRoles.gateway != 0 {
		p.weftRoles.upstream = childOf(p.weftRoles.gateway, p.upstreamExe) // running once a call went through
	}
	var direct, weft []sample
	var directCPU, weftCPU cpuUse
	for round := range rounds {
		if round%2 == 1 {
			weft = append(weft, metered(ctx, p.weft, n, conc, p.weftRoles, &weftCPU))
		}
		direct = append(direct, metered(ctx, p.direct, n, conc, p.directRoles, &directCPU))
		if round%2 == 0 {
			weft = append(weft, metered(ctx, p.weft, n, conc, p.weftRoles, &weftCPU))
		}
	}
	d, wf := merge(direct...), merge(weft...)
	row := overheadRow{Transport: p.transport, Client: p.client, Revision: p.revision, DirectRev: p.directRevision, Concurrency: conc, Direct: d.summarise(), Weft: wf.summarise()}
	row.DirectCost = perCall(directCPU, row.Direct.Calls, p.directRoles)
	row.WeftCost = perCall(weftCPU, row.Weft.Calls, p.weftRoles)
	for _, e := range d.errs {
		row.Errors = append(row.Errors, "direct: "+e)
	}
	for _, e := range wf.errs {
		row.Errors = append(row.Errors, "weft: "+e)
	}
	if row.Direct.CallsPerSec > 0 {
		row.Ratio = row.Weft.CallsPerSec / row.Direct.CallsPerSec
	}
	row.AddedP50MS = row.Weft.P50MS - row.Direct.P50MS
	return row
}

// setupStdio: the client launches the upstream directly, or launches
// `weft mcp-server`, which launches the upstream as its own stdio child.
func setupStdio(ctx context.Context, w *workspace, rev string) (*pathPair, error) {
	p := &pathPair{transport: "stdio", upstreamExe: w.benchserver}
	direct, upPID, err := w.connectStdioPID(ctx, "direct-stdio", rev, w.benchserver)
	if err != nil {
		return p, err
	}
	p.directRoles.upstream, p.directRevision = upPID, negotiated(direct)
	p.closers = append(p.closers, closeSession(direct))
	cfg := w.path("overhead-stdio.toml")
	if err := writeConfig(cfg, []entry{{name: "bench", target: w.benchserver}}); err != nil {
		return p, err
	}
	viaWeft, weftPID, err := w.connectStdioPID(ctx, "weft-stdio", rev, w.weft, "--config", cfg, "--log-level", "warn", "mcp-server")
	if err != nil {
		return p, err
	}
	p.weftRoles.gateway, p.revision = weftPID, negotiated(viaWeft)
	p.closers = append(p.closers, closeSession(viaWeft))
	p.direct, p.weft = echoCaller(direct, "echo"), echoCaller(viaWeft, "bench__echo")
	return p, nil
}

// setupHTTP: one upstream serves Streamable HTTP; the client calls it
// directly, or calls `weft serve`, which has it as an HTTP upstream.
func setupHTTP(ctx context.Context, w *workspace, rev string) (*pathPair, error) {
	p := &pathPair{transport: "http"}
	upURL, err := directHTTP(ctx, w, p, rev)
	if err != nil {
		return p, err
	}
	p.weftRoles.upstream = p.directRoles.upstream
	return p, viaServe(ctx, w, p, "weft-http", rev, entry{name: "bench", target: upURL})
}

// setupServeStdio: the client calls an HTTP upstream directly, or calls
// `weft serve`, which launches the upstream as its own stdio child — the
// issue's headline comparison (a stdio server behind an HTTP face).
func setupServeStdio(ctx context.Context, w *workspace, rev string) (*pathPair, error) {
	p := &pathPair{transport: transportServeStdio, upstreamExe: w.benchserver}
	if _, err := directHTTP(ctx, w, p, rev); err != nil {
		return p, err
	}
	return p, viaServe(ctx, w, p, "weft-http-stdio", rev, entry{name: "bench", target: w.benchserver})
}

// directHTTP starts an upstream serving Streamable HTTP and makes p's
// direct path a session to it from a client asking for rev; it returns the
// upstream's URL.
func directHTTP(ctx context.Context, w *workspace, p *pathPair, rev string) (string, error) {
	up, err := w.start("upstream-"+p.transport, w.benchserver, "--http", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	p.closers = append(p.closers, up.stop)
	p.directRoles.upstream = up.pid()
	upURL, err := up.waitURL(ctx, startTimeout)
	if err != nil {
		return "", err
	}
	direct, err := connectHTTPAs(ctx, upURL, rev)
	if err != nil {
		return "", err
	}
	p.closers = append(p.closers, closeSession(direct))
	p.direct, p.directRevision = echoCaller(direct, "echo"), negotiated(direct)
	return upURL, nil
}

// viaServe starts `weft serve` with the one upstream and makes p's weft
// path a session to its HTTP face from a client asking for rev.
func viaServe(ctx context.Context, w *workspace, p *pathPair, name, rev string, up entry) error {
	cfg := w.path(name + ".toml")
	if err := writeConfig(cfg, []entry{up}); err != nil {
		return err
	}
	wp, weftURL, err := w.startServe(ctx, name, cfg)
	if err != nil {
		return err
	}
	p.closers = append(p.closers, wp.stop)
	p.weftRoles.gateway = wp.pid()
	viaWeft, err := connectHTTPAs(ctx, weftURL, rev)
	if err != nil {
		return err
	}
	p.revision = negotiated(viaWeft)
	p.closers = append(p.closers, closeSession(viaWeft))
	p.weft = echoCaller(viaWeft, "bench__echo")
	return nil
}

// closeSession is a closer for a session.
func closeSession(cs *mcp.ClientSession) func() { return func() { _ = cs.Close() } }
