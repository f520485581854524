//go:build unix

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestManageAddThroughRunningWeft checks end to end: an AI client
// of `weft serve` asks mcp_manage to add a server, the human approves the
// exact command through elicitation, the server runs, is written to
// weft.toml, is logged with who asked, and the hot reload that follows
// leaves it alone.
func TestManageAddThroughRunningWeft(t *testing.T) {
	e := newEnv(t)
	if err := os.WriteFile(e.config, []byte("[security]\nautonomy = \"supervised\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.serve()
	fake := testutil.FakeServerBinary(t)
	asked := make(chan string, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-ai", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp_manage", Arguments: map[string]any{
		"action": "add", "name": "one", "target": fake, "args": []string{"--name", "one"}}})
	if err != nil || res.IsError {
		t.Fatalf("mcp_manage add: %v %+v", err, res)
	}
	if msg := <-asked; !strings.Contains(msg, `"`+fake+`" "--name" "one"`) {
		t.Errorf("the human was not shown the exact command: %s", msg)
	}
	if b, _ := os.ReadFile(e.config); !strings.Contains(string(b), "[tools.mcp_servers.one]") {
		t.Fatalf("server not written to weft.toml:\n%s", b)
	}
	if !has(toolNames(t, cs), "one__echo") {
		t.Fatal("one__echo not served after mcp_manage add")
	}
	waitLog(t, s, "config reloaded")
	log := s.stderr.String()
	if !strings.Contains(log, `asked_by="e2e-ai 1"`) {
		t.Errorf("the add was not logged with who asked:\n%s", log)
	}
	reloads := ""
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "config reloaded") {
			reloads += line + "\n"
		}
	}
	if strings.Contains(reloads, "changed=[one]") || strings.Contains(reloads, "added=[one]") {
		t.Errorf("the hot reload after mcp_manage churned the server:\n%s", log)
	}
}

// waitLog waits until the served weft has logged want.
func waitLog(t *testing.T, s *served, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(s.stderr.String(), want) {
		select {
		case <-s.stderr.added():
		case <-deadline:
			t.Fatalf("weft never logged %q:\n%s", want, s.stderr.String())
		}
	}
}
