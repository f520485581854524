package daemon_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// BenchmarkAgentView compares listing and calling through an agent's view
// with the same through the default face (/mcp), over one shared upstream
// of 200 tools: the agent sees all of them but one (a denied_tools glob), so
// both faces list and call the same work and the difference is the view.
//
//	go test -run '^$' -bench AgentView -benchtime 2000x ./internal/daemon/
func BenchmarkAgentView(b *testing.B) {
	up := testutil.ServeHTTP(b, testutil.NewEchoServer("up", 200))
	path := writeConfig(b, fmt.Sprintf("[limits]\nmax_tools = 500\n[tools.mcp_servers.up]\ntarget = %q\n[agents.coder]\ndenied_tools = [\"up__tool_0199\"]\nmax_tools = 500\n", up))
	d := newDaemon(b, path)
	for _, face := range []string{"", "coder"} {
		name := map[string]string{"": "default", "coder": "agent"}[face]
		cs, _ := agentClient(b, d, face)
		ctx := context.Background()
		b.Run("list/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := cs.ListTools(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("call/"+name, func(b *testing.B) {
			params := &mcp.CallToolParams{Name: "up__echo", Arguments: map[string]any{"text": "x"}}
			for b.Loop() {
				if _, err := cs.CallTool(ctx, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
