//go:build linux

package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// reloadRow is scenario 5: how long a config change takes to
// reach a connected client, beside what the new server itself needs.
type reloadRow struct {
	Rounds int `json:"rounds"`
	// ReloadP50MS is config write → the new server's tools listed to a
	// client connected to weft (debounce, parse, diff, connect, catalog,
	// list_changed, the client's re-list).
	ReloadP50MS float64 `json:"reload_p50_ms"`
	ReloadMaxMS float64 `json:"reload_max_ms"`
	// ConnectP50MS is the new server's own start: launch, handshake, list.
	ConnectP50MS float64 `json:"connect_p50_ms"`
	// WeftP50MS is the difference of the medians: what weft adds, of which
	// DebounceMS is the deliberate wait for the editor to finish writing.
	WeftP50MS  float64 `json:"weft_p50_ms"`
	DebounceMS float64 `json:"debounce_ms"`
}

// reloadDebounce is weft's wait after the last config write.
const reloadDebounce = 500 * time.Millisecond

// reload runs scenario 5: each round adds one server to the config of a
// running `weft serve` and times until a connected client lists its tool.
func reload(ctx context.Context, w *workspace, o options) (*reloadRow, error) {
	cfg := w.path("reload.toml")
	entries := []entry{{name: "bench", target: w.benchserver}}
	if err := writeConfig(cfg, entries); err != nil {
		return nil, err
	}
	p, url, err := w.startServe(ctx, "weft-reload", cfg)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "weft-bench", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to weft: %w", err)
	}
	defer cs.Close()

	rounds := o.reloadRounds()
	var reloads, connects []time.Duration
	for k := range rounds {
		name := fmt.Sprintf("reload_%02d", k)
		entries = append(entries, entry{name: name, target: w.benchserver, args: []string{"--name", name}})
		d, err := timeReload(ctx, cs, cfg, entries, name+"__echo", changed)
		if err != nil {
			return nil, err
		}
		reloads = append(reloads, d)
		c, err := slowest(1, connectAndList(ctx, func() (*mcp.ClientSession, error) {
			return w.connectStdio(ctx, "reload-direct", w.benchserver, "--name", name)
		}))
		if err != nil {
			return nil, err
		}
		connects = append(connects, c)
	}
	slices.Sort(reloads)
	slices.Sort(connects)
	row := &reloadRow{
		Rounds: rounds, ReloadP50MS: ms(percentile(reloads, 50)), ReloadMaxMS: ms(reloads[len(reloads)-1]),
		ConnectP50MS: ms(percentile(connects, 50)), DebounceMS: ms(reloadDebounce),
	}
	row.WeftP50MS = row.ReloadP50MS - row.ConnectP50MS
	return row, nil
}

// timeReload writes the config and waits, on list_changed, until the
// client's tools/list shows tool.
func timeReload(ctx context.Context, cs *mcp.ClientSession, cfg string, entries []entry, tool string, changed <-chan struct{}) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	t0 := time.Now()
	if err := writeConfig(cfg, entries); err != nil {
		return 0, err
	}
	for {
		select {
		case <-changed:
		case <-ctx.Done():
			return 0, fmt.Errorf("reload: %s never listed: %w", tool, ctx.Err())
		}
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return 0, err
			}
			if t.Name == tool {
				return time.Since(t0), nil
			}
		}
	}
}
