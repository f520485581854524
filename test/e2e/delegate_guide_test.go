//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// guideBlock returns the fenced block after marker in docs/guides/tool-calls.md.
func guideBlock(t *testing.T, marker string) string { return markedBlock(t, "tool-calls.md", marker) }

// splitQuoted splits a command line on spaces, keeping "quoted words".
func splitQuoted(line string) []string {
	var out []string
	for i, part := range strings.Split(strings.TrimSpace(line), `"`) {
		if i%2 == 1 {
			out = append(out, part)
			continue
		}
		out = append(out, strings.Fields(part)...)
	}
	return out
}

// TestDelegateGuideCommand runs the guide's delegation command with its
// [delegation] table: the real Claude Code, found on PATH, calls a weft tool
// through weft as its MCP server and answers.
func TestDelegateGuideCommand(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic,
		llmtest.Reply{Text: "Let me echo.", Calls: []llmtest.Call{{Name: "mcp__weft__fake__echo", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "The echo said fake:hi."},
	)
	e := claudeDelegateEnv(t, srv, "")
	t.Setenv("PATH", filepath.Dir(npmBin(t, "claude"))+string(os.PathListSeparator)+os.Getenv("PATH"))
	e.writeConfig(t, guideBlock(t, "delegate config")+fmt.Sprintf("\n[tools.mcp_servers.fake]\ntarget = %q\n", testutil.FakeServerBinary(t)))
	args := splitQuoted(guideBlock(t, "delegate command"))
	if args[0] != "weft" {
		t.Fatalf("the guide's command is %q", args)
	}
	out, errOut, code := e.run(args[1:]...)
	if code != 0 || strings.TrimSpace(out) != "The echo said fake:hi." {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got, want := errOut+out, guideBlock(t, "delegate output"); got != want {
		t.Errorf("the run printed\n%s\nbut the guide shows\n%s", got, want)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[len(last)-1]; got.Role != "tool" || !strings.Contains(got.Text, "fake:hi") {
		t.Errorf("Claude Code did not pass on weft's tool result; its last message: %+v", got)
	}
}
