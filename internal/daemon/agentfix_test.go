package daemon_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// closedURL is an MCP URL nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/mcp"
}

// A call to a tool of an agent's separate instance that is down answers
// the instance's state, naming the server as the agent knows it, as a call
// to a global server that is down does.
func TestAgentInstanceDownSaysSo(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[agents.x.mcp_servers.a]\ntarget = %q\n", a, closedURL(t))))
	x, _ := agentClient(t, d, "x")
	_, err := x.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__echo", Arguments: map[string]any{}})
	want := `unknown tool "a__echo": a: server disconnected (connect a: `
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "@") {
		t.Errorf("x's call of a tool of its instance that is down answered %v; want %s… without the instance's internal name", err, want)
	}
}
