package daemon_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

// weft__delegate called by a client of agent coder's HTTP face delegates
// as coder: the generated MCP config runs `weft mcp-server … --agent
// coder`, coder's [agents.coder.delegation] model reaches Claude Code, and
// the cost is counted under coder. The default face delegates as nobody.
func TestAgentFaceDelegatesAsItsAgent(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_MODE", "ok")
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	path := writeConfig(t, "[delegation]\nclaude_command = \""+testutil.FakeClaudeBinary(t)+"\"\nfallback = [\"claude\"]\nmodel = \"sonnet\"\n\n"+
		"[agents.coder]\n[agents.coder.delegation]\nmodel = \"opus\"\n")
	d := newDaemon(t, path)
	srv := httptest.NewServer(d.Gateway().Handler())
	defer srv.Close()
	tests := []struct {
		path, wantArgs, wantModel string
	}{
		{gateway.AgentPath("coder"), `"args":["mcp-server","--settle","15s","--agent","coder",`, "--model opus"},
		{gateway.Endpoint, `"args":["mcp-server","--settle","15s","--config",`, "--model sonnet"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: srv.URL + tt.path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "say hi"}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if res.IsError || !strings.Contains(text, tt.wantArgs) || !strings.Contains(text, tt.wantModel) {
				t.Fatalf("Claude Code ran with %s; want %s and %s", text, tt.wantArgs, tt.wantModel)
			}
		})
	}
	if body := scrape(t, d); !strings.Contains(body, `weft_agent_cost_usd_total{agent="coder"} 0.0375`) {
		t.Errorf("/metrics lacks coder's delegation cost:\n%s", body)
	}
}
