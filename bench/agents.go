//go:build linux

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentsRow compares, in one weft serve over one shared upstream, a client
// of /mcp with a client of /agents/coder/mcp (an agent that sees every
// tool): the cost of an agent's view.
type agentsRow struct {
	Op          string   `json:"op"` // "call" or "list"
	Concurrency int      `json:"concurrency"`
	Default     stats    `json:"default"`
	Agent       stats    `json:"agent"`
	Ratio       float64  `json:"throughput_ratio"` // agent ÷ default calls/s
	AddedP50MS  float64  `json:"added_p50_ms"`
	Errors      []string `json:"errors,omitempty"`
}

// agentsCost runs the agents scenario: tools/call and tools/list through
// the default face and through an agent's face of the same weft, measured
// in alternating rounds.
func agentsCost(ctx context.Context, w *workspace, o options) ([]agentsRow, error) {
	up, upURL, err := w.httpUpstream(ctx, "agents-upstream")
	if err != nil {
		return nil, err
	}
	defer up.stop()
	p, err := w.weftCaller(ctx, "agents", []entry{{name: "bench", target: upURL}}, "[agents.coder]\n")
	if err != nil {
		return nil, err
	}
	defer p.close()
	all := p.session
	coder, err := connectHTTP(ctx, strings.TrimSuffix(p.url, "/mcp")+"/agents/coder/mcp")
	if err != nil {
		return nil, err
	}
	defer coder.Close()
	var rows []agentsRow
	for _, run := range []struct {
		op   string
		conc int
		of   func(*mcp.ClientSession) caller
	}{
		{"call", 1, func(s *mcp.ClientSession) caller { return echoCaller(s, "bench__echo") }},
		{"call", 64, func(s *mcp.ClientSession) caller { return echoCaller(s, "bench__echo") }},
		{"list", 1, listCaller},
	} {
		pair := &pathPair{transport: "http", direct: run.of(all), weft: run.of(coder)}
		r := measurePair(ctx, pair, run.conc, o)
		rows = append(rows, agentsRow{Op: run.op, Concurrency: run.conc, Default: r.Direct, Agent: r.Weft, Ratio: r.Ratio,
			AddedP50MS: r.AddedP50MS, Errors: r.Errors})
		o.progress("agents %s c=%d done", run.op, run.conc)
	}
	return rows, nil
}

// listCaller lists the session's tools.
func listCaller(s *mcp.ClientSession) caller {
	return func(ctx context.Context) error {
		res, err := s.ListTools(ctx, nil)
		if err == nil && len(res.Tools) == 0 {
			err = fmt.Errorf("tools/list returned no tools")
		}
		return err
	}
}
