package daemon_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
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
	srv := httptest.NewServer(d.Gateway().Handler())
	b.Cleanup(srv.Close)
	for _, face := range []string{"", "coder", "http:/mcp", "http:/agents/coder/mcp"} {
		name := map[string]string{"": "default", "coder": "agent", "http:/mcp": "http-default", "http:/agents/coder/mcp": "http-agent"}[face]
		ctx := context.Background()
		var cs *mcp.ClientSession
		if path, ok := strings.CutPrefix(face, "http:"); ok {
			var err error
			cs, err = mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + path}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
		} else {
			cs, _ = agentClient(b, d, face)
		}
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
