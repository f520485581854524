//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// dashboardPlan gives the plans page a graph to draw: a fan-out and join.
const dashboardPlan = `{"id":"report","title":"Weekly report","steps":[
 {"index":1,"title":"Fetch issues","tool_calls":[{"name":"one__echo","args":{"text":"issues"}}]},
 {"index":2,"title":"Fetch PRs","depends_on":[1],"tool_calls":[{"name":"one__echo","args":{"text":"prs"}}]},
 {"index":3,"title":"Fetch CI","depends_on":[1],"tool_calls":[{"name":"two__echo","args":{"text":"ci"}}]},
 {"index":4,"title":"Summarise","depends_on":[2,3],"tool_calls":[{"name":"one__echo","args":{"text":"sum"}}]}]}`

// storePlan puts a plan in the environment's plans directory, as
// `weft plan import` would.
func (e *env) storePlan(t *testing.T, id, body string) {
	t.Helper()
	plans := filepath.Join(e.home, ".weft", "plans")
	if err := os.MkdirAll(plans, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plans, id+".json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// headlessChromium starts a fresh headless Chromium with the flags a shared CI
// machine needs.
func headlessChromium(t *testing.T) context.Context {
	t.Helper()
	path := testutil.SystemTool(t, "chromium", "chromium")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 760),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// screenshot saves the page; with WEFT_SCREENSHOTS=1 into docs/images,
// for the observability guide and the README.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := t.TempDir()
	if os.Getenv("WEFT_SCREENSHOTS") != "" {
		dir = filepath.Join("..", "..", "docs", "images")
	}
	if err := os.WriteFile(filepath.Join(dir, "dashboard-"+name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// showPage switches the dashboard to page (a same-document navigation) and
// waits at most 15 s for ready to show.
func showPage(ctx context.Context, page, ready string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[chromedp.Void](`location.hash = "`+page+`"`)(ctx, t)
		return err
	}), chromedp.WaitVisible(chromedp.CSS(ready)))
}

// childNamed finds weft's child process whose command line holds arg.
func childNamed(t *testing.T, weftPid int, arg string) int {
	t.Helper()
	for _, pid := range childrenOf(weftPid) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), arg) {
			return pid
		}
	}
	t.Fatalf("no child of weft runs with %q", arg)
	return 0
}

func TestDashboardInChromium(t *testing.T) {
	ctx := headlessChromium(t)
	e := newEnv(t)
	t.Setenv("WEFT_TOKEN", observeToken)
	fake := testutil.FakeServerBinary(t)
	e.writeConfig(t, fmt.Sprintf("[security]\nhttp_token_env = \"WEFT_TOKEN\"\n\n"+
		"[tools.mcp_servers.one]\ntarget = %q\nargs = [\"--name\", \"one\"]\n\n"+
		"[tools.mcp_servers.two]\ntarget = %q\nargs = [\"--name\", \"two\"]\n", fake, fake))
	e.storePlan(t, "report", dashboardPlan)
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")
	cs := connectToken(t, s.url, observeToken)
	echo(t, cs, "one__echo")
	echo(t, cs, "two__echo")

	// The token is exchanged for a cookie and leaves the address bar.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/?token="+observeToken),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-server="one"].up`))); err != nil {
		t.Fatalf("servers page: %v", err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the URL: %s", loc)
	}
	screenshot(t, ctx, "servers")

	// A running plan's steps change state on the open page.
	if err := showPage(ctx, "plans", `#plans a`); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#plans a`)), chromedp.WaitVisible(chromedp.CSS(`#dag g.step.pending`))); err != nil {
		t.Fatalf("plan graph before the run: %v", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weft__plan_run", Arguments: map[string]any{"id": "report"}})
	if err != nil || res.IsError {
		t.Fatalf("weft__plan_run: %v %+v", err, res)
	}
	lit, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, err = chromedp.Run(lit, chromedp.Poll[bool](`document.querySelectorAll("#dag g.step.done").length === 4`))
	cancel()
	if err != nil {
		t.Fatalf("the plan's steps did not turn done on the open page: %v", err)
	}
	screenshot(t, ctx, "plan-run")
	if err := showPage(ctx, "servers", `tr[data-server="one"].up`); err != nil {
		t.Fatal(err)
	}

	// A server going down turns its row red within 2 s.
	pid := childNamed(t, s.cmd.Process.Pid, "--name one")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	red, cancel := context.WithTimeout(ctx, 2*time.Second)
	err = chromedp.Do(red, chromedp.WaitVisible(chromedp.CSS(`tr[data-server="one"].down`)))
	cancel()
	if err != nil {
		t.Fatalf("the row of a server that went down did not turn red within 2 s: %v", err)
	}
	screenshot(t, ctx, "server-down")

	for _, page := range []struct{ name, ready string }{
		{"tools", `#tools tbody tr`},
		{"calls", `#recent tbody tr`},
		{"sessions", `#sessions tbody tr`},
	} {
		if err := showPage(ctx, page.name, page.ready); err != nil {
			html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("main").innerHTML`))
			t.Fatalf("%s page: %v\n%s", page.name, err, html)
		}
		screenshot(t, ctx, page.name)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/#tools"), chromedp.WaitVisible(chromedp.CSS(`#tools tbody tr`)),
		chromedp.SendKeys(chromedp.CSS(`#tool-search`), "two__ech")); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tools tbody tr").length`))
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("searching tools for two__ech shows %d rows, want 1", n)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/#plans"), chromedp.WaitVisible(chromedp.CSS(`#plans a`)),
		chromedp.Click(chromedp.CSS(`#plans a`)), chromedp.WaitVisible(chromedp.CSS(`#dag g.step`))); err != nil {
		t.Fatalf("plans page: %v", err)
	}
	n, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#dag g.step").length + 10*document.querySelectorAll("#dag path[d^='M']").length`))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4+10*(4+1) { // 4 steps; 4 edges plus the arrow head's path
		t.Errorf("plan graph has %d steps and %d paths, want 4 and 5", n%10, n/10)
	}
	screenshot(t, ctx, "plan")

	crossOriginCannotAct(t, ctx, base, e)

	// The dashboard's own action goes through: disable edits weft.toml and
	// the running weft drops the server.
	// The table is redrawn as events arrive, so click from the page itself
	// rather than through a node id that a redraw may retire.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/")); err != nil {
		t.Fatal(err)
	}
	if err := showPage(ctx, "servers", `tr[data-server="two"] button`); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](
		`document.querySelector('tr[data-server="two"] td:last-child button:nth-child(2)').click()`)); err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(gone, chromedp.Poll[bool](`document.querySelector('tr[data-server="two"]') === null`)); err != nil {
		t.Fatalf("disabling two from the dashboard did not remove its row: %v", err)
	}
	if b, _ := os.ReadFile(e.config); !strings.Contains(string(b), "enabled = false") {
		t.Errorf("weft.toml after disable:\n%s", b)
	}
}

// crossOriginCannotAct opens a page of another origin in the browser that
// holds weft's cookie; its requests to the action endpoint are refused
// and server two is still configured.
func crossOriginCannotAct(t *testing.T, ctx context.Context, base string, e *env) {
	target := base + "/ui/api/servers/two/remove"
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>evil</title>
<form id="f" method="POST" action="%[1]s" target="sink" enctype="text/plain"><input name='{"a":"' value='"}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
let left = 3;
const done = () => { if (--left === 0) document.title = "done"; };
document.getElementById("sink").addEventListener("load", done, { once: true });
document.getElementById("f").submit();
fetch(%[2]q, { method: "POST", credentials: "include", headers: { "Content-Type": "application/json" }, body: "{}" }).finally(done);
fetch(%[2]q, { method: "POST", credentials: "include", mode: "no-cors", body: "{}" }).finally(done);
</script>`, target, target)
	}))
	defer evil.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.title === "done"`)(ctx, t)
		return err
	})); err != nil {
		t.Fatalf("cross-origin page: %v", err)
	}
	if b, _ := os.ReadFile(e.config); !strings.Contains(string(b), "[tools.mcp_servers.two]") {
		t.Fatalf("a cross-origin page removed server two:\n%s", b)
	}
	req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", evil.URL)
	req.AddCookie(&http.Cookie{Name: "weft_ui", Value: observeToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("action with a foreign Origin and the cookie: %d, want 403", resp.StatusCode)
	}
}
