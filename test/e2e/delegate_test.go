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

// D1: `weft delegate` runs the real Claude Code, which calls a weft tool
// through weft as its MCP server and then answers.
func TestDelegateClaudeCallsWeftTool(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic,
		llmtest.Reply{Text: "Let me echo.", Calls: []llmtest.Call{{Name: "mcp__weft__fake__echo", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "The echo said fake:hi."},
	)
	e := claudeDelegateEnv(t, srv, "")
	out, errOut, code := e.run("delegate", "echo hi through weft", "--allowed-tools", "mcp__weft__fake__echo", "--max-turns", "5")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.TrimSpace(out) != "The echo said fake:hi." {
		t.Errorf("stdout = %q, want the model's answer", out)
	}
	for _, want := range []string{"[claude] text: Let me echo.", `[claude] → mcp__weft__fake__echo {"text":"hi"}`, "[claude] result: The echo said fake:hi."} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks the step %q:\n%s", want, errOut)
		}
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if got := last.Messages[len(last.Messages)-1]; got.Role != "tool" || !strings.Contains(got.Text, "fake:hi") {
		t.Errorf("Claude Code did not pass on weft's tool result; its last message: %+v", got)
	}
}
