//go:build unix

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// awaitJS polls the page until expr is true, for at most d.
func awaitJS(t *testing.T, ctx context.Context, d time.Duration, expr, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		html, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[string](`document.querySelector("main").innerHTML`))
		t.Fatalf("%s: %v\n%s", what, err, html)
	}
}

// The agents page in headless Chromium: it lists each configured agent with
// its servers and tools; a client connecting as coder raises coder's
// session count on the open page, and a delegation from that client shows
// up as coder's cost. The tools page filtered by coder shows coder's tools
// only; the sessions page names the agent.
func TestDashboardAgentsPage(t *testing.T) {
	ctx := headlessChromium(t)
	e := newEnv(t)
	t.Setenv("WEFT_TOKEN", observeToken)
	t.Setenv("FAKE_CLAUDE_MODE", "ok")
	fake := testutil.FakeServerBinary(t)
	e.writeConfig(t, fmt.Sprintf("[security]\nhttp_token_env = \"WEFT_TOKEN\"\n\n"+
		"[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n\n"+
		"[tools.mcp_servers.one]\ntarget = %q\nargs = [\"--name\", \"one\"]\n\n"+
		"[tools.mcp_servers.two]\ntarget = %q\nargs = [\"--name\", \"two\"]\n\n"+
		"[agents.coder]\nservers = [\"one\"]\n\n[agents.reviewer]\nservers = [\"two\"]\ndenied_tools = [\"two__sleep\"]\n",
		testutil.FakeClaudeBinary(t), fake, fake))
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")
	coderCell := func(class string) string {
		return `document.querySelector('#agents tr[data-agent="coder"] td.` + class + `')`
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/?token="+observeToken),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-server="one"]`))); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	if err := showPage(ctx, "agents", `#agents tr[data-agent="reviewer"]`); err != nil {
		t.Fatalf("agents page: %v", err)
	}
	awaitJS(t, ctx, 5*time.Second, coderCell("sessions")+`.textContent === "0" && `+coderCell("servers")+`.textContent === "one"`,
		"coder listed with server one and no session")

	cs := connectToken(t, base+"/agents/coder/mcp", observeToken)
	awaitJS(t, ctx, 3*time.Second, coderCell("sessions")+`.textContent === "1"`,
		"coder's session count on the open page after a client connected as coder")

	callCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "say hi"}})
	if err != nil || res.IsError {
		t.Fatalf("weft__delegate as coder: %v %+v", err, res)
	}
	awaitJS(t, ctx, 3*time.Second, coderCell("cost")+`.textContent === "0.0375"`, "coder's delegation cost on the open page")
	screenshot(t, ctx, "agents")

	if err := showPage(ctx, "tools", `#tools tbody tr`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](
		`const pick = document.querySelector("#tool-agent"); pick.value = "coder"; pick.dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	awaitJS(t, ctx, 5*time.Second, `(() => { const rows = [...document.querySelectorAll("#tools tbody tr")];
		return rows.length > 0 && rows.every((r) => r.cells[1].textContent === "one"); })()`, "the tools page filtered by coder")
	screenshot(t, ctx, "tools-agent")

	if err := showPage(ctx, "sessions", `#sessions tr[data-agent="coder"]`); err != nil {
		t.Fatalf("sessions page: %v", err)
	}
}
