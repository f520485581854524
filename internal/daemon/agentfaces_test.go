package daemon_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/plan"
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
	res, err := x.CallTool(context.Background(), &mcp.CallToolParams{Name: "weft__call_tool", Arguments: map[string]any{"name": "a__echo"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, want) || strings.Contains(text, "@") {
		t.Errorf("x's weft__call_tool of a__echo answered %q; want %s… without the instance's internal name", text, want)
	}
}

// subServer serves doc://x and the template doc://{name}, and records each
// subscribe, unsubscribe and completion it is asked for in heard.
func subServer(heard chan<- string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "doc"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			heard <- "subscribe " + req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
			heard <- "unsubscribe " + req.Params.URI
			return nil
		},
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			heard <- "complete " + req.Params.Ref.URI
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"x"}}}, nil
		},
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "doc://x", Name: "x"}, read)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "doc://{name}", Name: "docs"}, read)
	return s
}

// An agent's subscriptions and completions about its separate instance's
// resources go to that instance, not to the configured server.
func TestAgentInstanceSubscribeAndComplete(t *testing.T) {
	globalHeard, ownHeard := make(chan string, 10), make(chan string, 10)
	global := testutil.ServeHTTP(t, subServer(globalHeard))
	own := testutil.ServeHTTP(t, subServer(ownHeard))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.doc]\ntarget = %q\n[agents.x.mcp_servers.doc]\ntarget = %q\n", global, own)))
	x := legacyAgentClient(t, d, "x")
	ctx := context.Background()
	if err := x.Subscribe(ctx, &mcp.SubscribeParams{URI: "doc://x"}); err != nil {
		t.Fatalf("x subscribes to doc://x: %v", err)
	}
	if err := x.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "doc://x"}); err != nil {
		t.Fatalf("x unsubscribes from doc://x: %v", err)
	}
	if _, err := x.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "doc://{name}"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "x"}}); err != nil {
		t.Fatalf("x completes doc://{name}: %v", err)
	}
	want := []string{"subscribe doc://x", "unsubscribe doc://x", "complete doc://{name}"}
	for _, w := range want {
		select {
		case got := <-ownHeard:
			if got != w {
				t.Errorf("x's own instance heard %q; want %q", got, w)
			}
		case got := <-globalHeard:
			t.Fatalf("the configured server heard %q from x; want x's own instance to", got)
		case <-time.After(10 * time.Second):
			t.Fatalf("no server heard %q from x", w)
		}
	}
	select {
	case got := <-globalHeard:
		t.Errorf("the configured server heard %q from x", got)
	default:
	}
}

// legacyAgentClient connects a 2025-11-25 client, which subscribes with
// resources/subscribe, to the named agent's face.
func legacyAgentClient(t *testing.T, d *daemon.Daemon, agent string) *mcp.ClientSession {
	t.Helper()
	return connectAgent(t, d, agent, mcp.NewClient(&mcp.Implementation{Name: "legacy-client"}, nil),
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// Setting [gateway] agents_dir while weft runs moves the watch to the new
// directory: an agent file written there afterwards applies at once.
func TestAgentsDirChangeIsFollowed(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	base := fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n", a)
	path := writeConfig(t, base)
	d := newDaemon(t, path, func(o *daemon.Options) { o.NoWatch = false })
	moved := filepath.Join(t.TempDir(), "team")
	writeAgent := func(name string) {
		t.Helper()
		file := filepath.Join(moved, name, "weft.toml")
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("servers = [\"a\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeAgent("y")
	if err := os.WriteFile(path, []byte(fmt.Sprintf("[gateway]\nagents_dir = %q\n", moved)+base), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitAgent(t, d, "y")
	writeAgent("z")
	awaitAgent(t, d, "z")
}

// An agent's client runs saved plans through weft__plan_run as the agent:
// a plan within its view runs; a step calling a tool outside it fails as an
// unknown tool, though the same plan runs for /mcp.
func TestAgentRunsPlansInsideItsView(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	b := testutil.ServeHTTP(t, testutil.NewEchoServer("b", 1))
	plans := t.TempDir()
	t.Setenv("WEFT_PLANS_DIR", plans)
	store := &plan.Store{Dir: plans}
	for id, tool := range map[string]string{"inside": "a__echo", "outside": "b__echo"} {
		p := &plan.Plan{ID: id, Title: id, Steps: []plan.Step{{Index: 1, Title: "echo", ToolCalls: []plan.ToolCall{{Name: tool, Args: map[string]any{"text": "hi"}}}}}}
		p.FillDefaults(time.Now())
		if err := store.Save(p); err != nil {
			t.Fatal(err)
		}
	}
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[tools.mcp_servers.b]\ntarget = %q\n[agents.x]\nservers = [\"a\"]\n", a, b)))
	run := func(agent, id string) (text string, isError bool) {
		t.Helper()
		cs, _ := agentClient(t, d, agent)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weft__plan_run", Arguments: map[string]any{"id": id}})
		if err != nil {
			t.Fatalf("agent %q runs plan %s: %v", agent, id, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := run("x", "inside"); isErr || !strings.Contains(text, `"status":"completed"`) {
		t.Errorf("x runs a plan within its view: %s (isError %v); want it completed", text, isErr)
	}
	if text, isErr := run("x", "outside"); !isErr || !strings.Contains(text, `unknown tool "b__echo"`) {
		t.Errorf("x runs a plan calling b__echo, outside its view: %s (isError %v); want an unknown-tool error", text, isErr)
	}
	if text, isErr := run("", "outside"); isErr || !strings.Contains(text, `"status":"completed"`) {
		t.Errorf("/mcp runs the plan calling b__echo: %s (isError %v); want it completed", text, isErr)
	}
}

// A completion from a client on the newest protocol reaches an upstream
// that speaks an older one: the client's protocol metadata stays behind.
func TestCompletionFromNewestClientReachesOlderUpstream(t *testing.T) {
	heard := make(chan string, 10)
	doc := testutil.ServeHTTP(t, subServer(heard))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.doc]\ntarget = %q\n", doc)))
	cs, _ := agentClient(t, d, "")
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "doc://{name}"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "x"}})
	if err != nil {
		t.Fatalf("complete doc://{name}: %v", err)
	}
	if got := res.Completion.Values; len(got) != 1 || got[0] != "x" {
		t.Errorf("completion values %v; want [x]", got)
	}
}

// An update of a URI that both the configured server and an agent's
// separate instance serve reaches only the clients subscribed at the server
// that sent it. Agent y uses the configured server; the hub tells x's face
// before y's of each update, so once y has heard of doc://x, an update of
// doc://b from x's instance reaches x after any of doc://x would have.
func TestAgentInstanceResourceUpdatesStayApart(t *testing.T) {
	globalSrv, ownSrv := subServer(make(chan string, 10)), subServer(make(chan string, 10))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.doc]\ntarget = %q\n[agents.x.mcp_servers.doc]\ntarget = %q\n[agents.y]\nservers = [\"doc\"]\n",
		testutil.ServeHTTP(t, globalSrv), testutil.ServeHTTP(t, ownSrv))))
	ctx := context.Background()
	subscriber := func(agent string, uris ...string) <-chan string {
		heard := make(chan string, 10)
		c := mcp.NewClient(&mcp.Implementation{Name: "legacy-client"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { heard <- req.Params.URI },
		})
		cs := connectAgent(t, d, agent, c, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		for _, uri := range uris {
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatalf("agent %q subscribes to %s: %v", agent, uri, err)
			}
		}
		return heard
	}
	xHeard, yHeard := subscriber("x", "doc://x", "doc://b"), subscriber("y", "doc://x")
	update := func(from *mcp.Server, uri string) {
		t.Helper()
		if err := from.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	heard := func(who string, heard <-chan string) string {
		t.Helper()
		select {
		case uri := <-heard:
			return uri
		case <-time.After(10 * time.Second):
			t.Fatalf("%s heard no update", who)
			return ""
		}
	}
	update(globalSrv, "doc://x")
	if uri := heard("y's client", yHeard); uri != "doc://x" {
		t.Errorf("y's client heard of %s; want doc://x from the configured server", uri)
	}
	update(ownSrv, "doc://b")
	for uri := heard("x's client", xHeard); uri != "doc://b"; uri = heard("x's client", xHeard) {
		t.Errorf("x's client heard of %s, updated at the configured server; want only x's instance's updates", uri)
	}
	update(ownSrv, "doc://x")
	if uri := heard("x's client", xHeard); uri != "doc://x" {
		t.Errorf("x's client heard of %s; want doc://x from its instance", uri)
	}
	update(globalSrv, "doc://x")
	if uri := heard("y's client", yHeard); uri != "doc://x" {
		t.Errorf("y's client heard of %s; want doc://x from the configured server", uri)
	}
}

// A call to a tool of an agent's separate instance still on its first
// connection waits for it, as a call to a configured server does, and is
// served once the instance is up.
func TestAgentInstanceCallWaitsForFirstConnection(t *testing.T) {
	gate := make(chan struct{})
	own := testutil.ServeGatedHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return testutil.NewEchoServer("a", 1) }, nil), gate)
	open := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(open) // before the server closes, on failure too
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	d := startDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[agents.x.mcp_servers.a]\ntarget = %q\n", a, own)))
	x, _ := agentClient(t, d, "x")
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := x.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__echo", Arguments: map[string]any{"text": "hi"}})
		done <- answer{res, err}
	}()
	select {
	case got := <-done:
		t.Fatalf("x's call answered before its instance connected: %v %v; want it to wait", got.res, got.err)
	case <-time.After(200 * time.Millisecond): // long enough for a call that does not wait to answer
	}
	open()
	got := <-done
	if got.err != nil || got.res.IsError || got.res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Fatalf("x's call of a__echo once its instance connected: %v %v; want hi", got.res, got.err)
	}
}

// A run as an agent (plans, weft's own agent) calling a tool of the
// agent's instance that is down is told the instance's state, as the
// agent's face says it, not only that the tool is unknown.
func TestAgentRunCallOfDownInstanceSaysSo(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[agents.x.mcp_servers.a]\ntarget = %q\n", a, closedURL(t))))
	tools, err := d.AgentTools("x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tools.CallTool(context.Background(), "a__echo", map[string]any{"text": "hi"})
	want := `unknown tool "a__echo": a: server disconnected (connect a: `
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "@") {
		t.Errorf("a run as x calling a tool of its instance that is down: %v; want %s… without the instance's internal name", err, want)
	}
}
