//go:build unix

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// writeConfig writes a weft.toml in its own directory and returns its path.
func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "weft.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDelegationChainRefusedAtMaxDepth checks without Claude: weft A
// fronts weft B (`weft mcp-server`), which fronts weft C and a fake server.
// With max_delegation_depth = 2, a call A → B → fake works, while A → B → C
// is refused by C, whose WEFT_DELEGATION_DEPTH is 2, with a clear error and
// no hang.
func TestDelegationChainRefusedAtMaxDepth(t *testing.T) {
	e := newEnv(t)
	weft, fake := weftBinary(t), testutil.FakeServerBinary(t)
	sec := "[security]\nmax_delegation_depth = 2\n"
	fakeEntry := "[tools.mcp_servers.one]\ntarget = \"" + fake + "\"\nargs = [\"--name\", \"one\"]\n"
	weftEntry := func(name, cfg string) string {
		return "[tools.mcp_servers." + name + "]\ntarget = \"" + weft + "\"\nargs = [\"--config\", \"" + cfg + "\", \"mcp-server\"]\n"
	}
	c := writeConfig(t, filepath.Join(e.home, "c"), sec+fakeEntry)
	b := writeConfig(t, filepath.Join(e.home, "b"), sec+fakeEntry+weftEntry("c", c))
	if err := os.WriteFile(e.config, []byte(sec+weftEntry("b", b)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.serve()
	cs := connect(t, s.url, nil)
	names := toolNames(t, cs)
	if !has(names, "b__one__echo") || !has(names, "b__c__one__echo") {
		t.Fatalf("chain not connected: %v\n%s", names, s.stderr.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "b__one__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("call within the depth limit failed: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "b__c__one__echo", Arguments: map[string]any{"text": "hi"}})
	if ctx.Err() != nil {
		t.Fatal("the call past the depth limit hung")
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if res.IsError {
		msg = res.Content[0].(*mcp.TextContent).Text
	}
	if !strings.Contains(msg, "delegation depth exceeded") || !strings.Contains(msg, "max_delegation_depth is 2") {
		t.Fatalf("call past the depth limit: err %v, result %+v; want a delegation depth refusal", err, res)
	}
	t.Logf("weft answered: %s", msg)
}
