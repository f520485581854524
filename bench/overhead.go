package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// overheadRow compares one transport at one concurrency, direct vs weft.
type overheadRow struct {
	Transport   string   `json:"transport"`
	Concurrency int      `json:"concurrency"`
	Direct      stats    `json:"direct"`
	Weft        stats    `json:"weft"`
	Ratio       float64  `json:"throughput_ratio"` // weft ÷ direct calls/s
	AddedP50MS  float64  `json:"added_p50_ms"`
	Errors      []string `json:"errors,omitempty"` // the first few failures, either path
}

// pathPair is a direct session to an upstream and a session to the same
// kind of upstream through weft, over one transport.
type pathPair struct {
	transport    string
	direct, weft caller
	closers      []func()
}

func (p *pathPair) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

// clientRevisions are the client revisions overhead measures: the go-sdk
// default (the newest first, which weft now serves) and the last legacy one.
var clientRevisions = []string{"", "2025-11-25"}

// overhead runs scenario 1 on both transports, for a default client and one
// pinned to 2025-11-25. Each row's transport names the revision the client
// negotiated, with weft and directly alike.
func overhead(ctx context.Context, w *workspace, o options) ([]overheadRow, error) {
	var rows []overheadRow
	for _, rev := range clientRevisions {
		for _, setup := range []func(context.Context, *workspace, string) (*pathPair, error){setupStdio, setupHTTP} {
			p, err := setup(ctx, w, rev)
			if err != nil {
				if p != nil {
					p.close()
				}
				return rows, err
			}
			for _, conc := range []int{1, 64} {
				rows = append(rows, measurePair(ctx, p, conc, o))
				o.progress("overhead %s c=%d done", p.transport, conc)
			}
			p.close()
		}
	}
	return rows, nil
}

// label names a transport and the revision the client negotiated with weft.
func label(transport string, viaWeft *mcp.ClientSession) string {
	return transport + " " + viaWeft.InitializeResult().ProtocolVersion
}

// measurePair warms both paths up, then alternates rounds of a fixed number
// of calls so that both see the same background load on a shared machine.
func measurePair(ctx context.Context, p *pathPair, conc int, o options) overheadRow {
	n := o.calls(conc)
	runCount(ctx, p.direct, 100, conc)
	runCount(ctx, p.weft, 100, conc)
	var direct, weft []sample
	for range o.rounds() {
		direct = append(direct, runCount(ctx, p.direct, n, conc))
		weft = append(weft, runCount(ctx, p.weft, n, conc))
	}
	d, wf := merge(direct...), merge(weft...)
	row := overheadRow{Transport: p.transport, Concurrency: conc, Direct: d.summarise(), Weft: wf.summarise()}
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
	p := &pathPair{transport: "stdio"}
	direct, err := w.connectStdioAt(ctx, rev, "direct-stdio", w.benchserver)
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, closeSession(direct))
	cfg := w.path("overhead-stdio.toml")
	if err := writeConfig(cfg, []entry{{name: "bench", target: w.benchserver}}); err != nil {
		return p, err
	}
	viaWeft, err := w.connectStdioAt(ctx, rev, "weft-stdio", w.weft, "--config", cfg, "--log-level", "warn", "mcp-server")
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, closeSession(viaWeft))
	p.transport = label(p.transport, viaWeft)
	p.direct, p.weft = echoCaller(direct, "echo"), echoCaller(viaWeft, "bench__echo")
	return p, nil
}

// setupHTTP: one upstream serves Streamable HTTP; the client calls it
// directly, or calls `weft serve`, which has it as an HTTP upstream.
func setupHTTP(ctx context.Context, w *workspace, rev string) (*pathPair, error) {
	p := &pathPair{transport: "http"}
	up, err := w.start("upstream-http", w.benchserver, "--http", "127.0.0.1:0")
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, up.stop)
	upURL, err := up.waitURL(ctx, startTimeout)
	if err != nil {
		return p, err
	}
	direct, err := connectHTTPAt(ctx, rev, upURL)
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, closeSession(direct))
	cfg := w.path("overhead-http.toml")
	if err := writeConfig(cfg, []entry{{name: "bench", target: upURL}}); err != nil {
		return p, err
	}
	wp, weftURL, err := w.startServe(ctx, "weft-http", cfg)
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, wp.stop)
	viaWeft, err := connectHTTPAt(ctx, rev, weftURL)
	if err != nil {
		return p, err
	}
	p.closers = append(p.closers, closeSession(viaWeft))
	p.transport = label(p.transport, viaWeft)
	p.direct, p.weft = echoCaller(direct, "echo"), echoCaller(viaWeft, "bench__echo")
	return p, nil
}

// closeSession is a closer for a session.
func closeSession(cs *mcp.ClientSession) func() { return func() { _ = cs.Close() } }
