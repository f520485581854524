//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hungAndEverything configures a stdio upstream that never answers its
// handshake beside server-everything.
func hungAndEverything(t *testing.T, e *env) {
	bin := npmBin(t, "mcp-server-everything")
	node := npmBin(t, "node")
	path := node[:strings.LastIndex(node, "/")] + ":" + os.Getenv("PATH")
	e.writeConfig(t, fmt.Sprintf("[tools.mcp_servers.hung]\ntarget = \"sleep\"\nargs = [\"1000\"]\n\n"+
		"[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n", bin, path))
}

// everythingStartTime is how long server-everything itself takes from
// launch to listing its tools, for a go-sdk client connecting directly.
func everythingStartTime(t *testing.T) time.Duration {
	node := npmBin(t, "node")
	cmd := exec.Command(npmBin(t, "mcp-server-everything"))
	cmd.Env = append(os.Environ(), "PATH="+node[:strings.LastIndex(node, "/")]+":"+os.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// awaitListChanged lists tools after each list_changed until want appears.
func awaitListChanged(t *testing.T, ctx context.Context, cs *mcp.ClientSession, changed chan struct{}, want string) {
	t.Helper()
	for !has(toolNames(t, cs), want) {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("%s never appeared; tools: %v", want, toolNames(t, cs))
		}
	}
}

// hungGaveUp matches weft's log line for the end of the hung server's first
// connection attempt (its 30 s timeout).
var hungGaveUp = regexp.MustCompile(`upstream not connected.* server=hung`)

// checkStartedEarly asserts what a client sees right after connecting to a
// weft whose upstreams are still coming up: weft's built-ins, never the
// hung server's tools; then server-everything's tools arrive with a
// list_changed while weft still waits for the hung server (its log,
// weftLog, does not yet say it gave up on it). How long they took is logged
// beside server-everything's own start time: both depend on the machine's
// load, so comparing them would test the load.
func checkStartedEarly(t *testing.T, cs *mcp.ClientSession, changed chan struct{}, began time.Time, weftLog *syncBuffer) {
	t.Helper()
	names := toolNames(t, cs)
	if !has(names, "weft__search_tools") {
		t.Fatalf("tools right after start lack weft's built-ins: %v", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "hung__") {
			t.Fatalf("the hung server's tool %s is listed", n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	awaitListChanged(t, ctx, cs, changed, "everything__echo")
	took := time.Since(began)
	if hungGaveUp.MatchString(weftLog.String()) {
		t.Fatalf("everything's tools appeared %v after weft started, only once weft gave up on the hung server:\n%s", took, weftLog)
	}
	t.Logf("everything's tools appeared %v after weft started (server-everything alone starts in %v)",
		took.Round(time.Millisecond), everythingStartTime(t).Round(time.Millisecond))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "everything__echo", Arguments: map[string]any{"message": "up"}})
	if err != nil || res.IsError {
		t.Fatalf("call everything__echo: %v %+v", err, res)
	}
}

// A hung upstream holds back neither `weft serve` nor the other upstream.
func TestServeListensBeforeAHungUpstream(t *testing.T) {
	e := newEnv(t)
	hungAndEverything(t, e)
	weftBinary(t) // built before the clock starts
	e.noSettle = true
	began := time.Now()
	s := e.serve()
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("weft serve listened after %v; want well within 5 s", took)
	}
	changed := make(chan struct{}, 1)
	cs := connect(t, s.url, changed)
	checkStartedEarly(t, cs, changed, began, s.stderr)
	if strings.Contains(s.stderr.String(), "MCP servers active") {
		t.Errorf("weft announced its upstreams settled while one is hung:\n%s", s.stderr)
	}
}

// A hung upstream does not hold back `weft mcp-server`'s answer to
// initialize, and the other upstream's tools arrive with list_changed.
func TestMcpServerAnswersInitializeBeforeAHungUpstream(t *testing.T) {
	e := newEnv(t)
	hungAndEverything(t, e)
	cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp-server")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	weftLog := &syncBuffer{}
	cmd.Stderr = &logWriter{weftLog}
	changed := make(chan struct{}, 1)
	opts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	began := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("initialize answered after %v; want well within 5 s", took)
	}
	checkStartedEarly(t, cs, changed, began, weftLog)
}

// With the real Claude Code: a config with a hung server beside
// server-everything still shows weft Connected within Claude Code's start
// bound, set to 5 s.
func TestClaudeSeesWeftConnectedBesideAHungUpstream(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	hungAndEverything(t, e)
	out := e.claude(claude, "mcp", "add", "weft", "--", weftBinary(t), "mcp-server", "--config", e.config)
	if !strings.Contains(out, "Added stdio MCP server weft") {
		t.Fatalf("claude mcp add: %s", out)
	}
	out = e.claudeIn(claude, e.home, 5*time.Second, "mcp", "list")
	if line := statusLine(out, "weft"); !strings.Contains(line, "Connected") {
		t.Fatalf("claude mcp list does not show weft connected within 5 s beside a hung server:\n%s", out)
	}
}
