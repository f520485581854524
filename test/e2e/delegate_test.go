//go:build unix

package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// claudeDelegateEnv points the real Claude Code at a scripted Anthropic
// server, offline, and writes a weft.toml whose delegate is that binary and
// whose one upstream is the fake MCP server. extra is added to [delegation].
func claudeDelegateEnv(t *testing.T, srv *llmtest.Server, extra string) *env {
	t.Helper()
	claude := npmBin(t, "claude")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-dummy")
	t.Setenv("DISABLE_AUTOUPDATER", "1")
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n%s\n[tools.mcp_servers.fake]\ntarget = %q\n",
		claude, extra, testutil.FakeServerBinary(t)))
	return e
}

// End to end: the real Claude Code, delegated to by weft, calls
// weft__delegate on the weft it started; that weft sees depth 1 in its
// environment and refuses, and Claude Code passes the refusal on.
func TestDelegateLoopRefusedThroughClaude(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__weft__weft__delegate", Args: `{"task":"delegate again"}`}}},
		llmtest.Reply{Text: "weft refused to nest."},
	)
	e := claudeDelegateEnv(t, srv, "[security]\nmax_delegation_depth = 1")
	out, errOut, code := e.run("delegate", "delegate to yourself", "--allowed-tools", "mcp__weft__weft__delegate")
	if code != 0 || strings.TrimSpace(out) != "weft refused to nest." {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	got := reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1]
	t.Logf("the nested weft__delegate returned: %s", got.Text)
	if got.Role != "tool" || !strings.Contains(got.Text, "depth 1 reached the limit security.max_delegation_depth = 1") {
		t.Errorf("the nested delegation was not refused at depth 1; Claude Code's last message: %+v", got)
	}
}
