// Command client is the MCP client that the official conformance suite's
// client scenarios run: it connects to the suite's test server through weft's
// own upstream code (internal/upstream, the same Dial, handshake, inventory
// and call path weft uses for every Streamable HTTP upstream) and does what
// the scenario named by MCP_CONFORMANCE_SCENARIO expects. The server's URL is
// the last argument.
//
// It exits 0 when the scenario's steps succeeded; the suite itself judges
// whether they conformed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/upstream"
)

// deadline bounds a whole scenario; the suite's own timeout is 30 s.
const deadline = 25 * time.Second

// toolCalls names the tool each scenario expects the client to call, with
// its arguments. Scenarios not listed only connect (initialize, list).
var toolCalls = map[string]struct {
	name string
	args string
}{
	"tools_call":                          {"add_numbers", `{"a":5,"b":3}`},
	"elicitation-sep1034-client-defaults": {"test_client_elicitation_defaults", `{}`},
	"sse-retry":                           {"test_reconnection", `{}`},
}

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: client SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)")
		os.Exit(2)
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	err := run(ctx, logger, scenario, url)
	cancel()
	if err != nil {
		logger.Error("scenario failed", "scenario", scenario, "err", err)
		os.Exit(1)
	}
	logger.Info("scenario done", "scenario", scenario)
}

func run(ctx context.Context, logger *slog.Logger, scenario, url string) error {
	cfg := &config.Server{Name: "conformance", Type: config.TransportHTTP, Target: url, TimeoutMS: int(deadline / time.Millisecond)}
	home, err := os.MkdirTemp("", "weft-conformance-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	logins, err := loginManager(logger, cfg, scenario, home)
	if err != nil {
		return err
	}
	conn, err := upstream.Dial(ctx, cfg, upstream.Options{Logger: logger, OAuth: logins.Handler})
	if err != nil {
		return fmt.Errorf("dial %s: %w", url, err)
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(closeCtx)
	}()
	info := conn.Info()
	logger.Info("connected", "server", info.Name, "protocol", info.ProtocolVersion, "tools", len(conn.Inventory().Tools))

	call, ok := toolCalls[scenario]
	if strings.HasPrefix(scenario, "auth/") {
		call, ok = struct {
			name string
			args string
		}{"test-tool", `{}`}, true
	}
	if !ok {
		return nil
	}
	if !hasTool(conn.Inventory(), call.name) {
		return fmt.Errorf("tool %q not listed by the server", call.name)
	}
	res, err := conn.CallTool(ctx, peer{logger}, call.name, json.RawMessage(call.args), nil)
	if err != nil {
		return fmt.Errorf("call %s: %w", call.name, err)
	}
	if res.IsError {
		return fmt.Errorf("call %s: the tool reported an error: %s", call.name, text(res))
	}
	logger.Info("tool result", "tool", call.name, "text", text(res))
	return nil
}

func hasTool(inv upstream.Inventory, name string) bool {
	for _, t := range inv.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s += t.Text
		}
	}
	return s
}

// peer stands in for the downstream client weft relays server-to-client
// traffic to. It accepts every elicitation without filling in any field, so
// that the schema's defaults (SEP-1034) must be applied by weft's upstream
// client, and it has no model for sampling.
type peer struct{ logger *slog.Logger }

func (p peer) CreateMessage(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return nil, errors.New("the conformance client has no model to sample")
}

func (p peer) Elicit(_ context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p.logger.Info("elicitation", "message", params.Message)
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
}

func (p peer) ListRoots(context.Context, *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []*mcp.Root{}}, nil
}

func (p peer) NotifyProgress(_ context.Context, params *mcp.ProgressNotificationParams) error {
	p.logger.Info("progress", "progress", params.Progress, "total", params.Total)
	return nil
}

func (p peer) Log(_ context.Context, params *mcp.LoggingMessageParams) error {
	p.logger.Info("server log", "level", params.Level, "data", params.Data)
	return nil
}
