package daemon_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

// agentClient connects an in-memory client to the named agent's face; the
// returned channel gets a value for each tools/list_changed it hears.
func agentClient(t testing.TB, d *daemon.Daemon, agent string) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 10)
	c := mcp.NewClient(&mcp.Implementation{Name: "client-of-" + agent}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	return connectAgent(t, d, agent, c, nil), changed
}

// connectAgent connects client c to the named agent's face in memory.
func connectAgent(t testing.TB, d *daemon.Daemon, agent string, c *mcp.Client, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	face, err := d.AgentFace(agent)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := face.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := c.Connect(ctx, ct, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func listed(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	return out
}

// Editing one agent's table reaches that agent's clients only, and leaves
// the shared servers' connections alone.
func TestAgentReloadNotifiesOnlyItsSessions(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 2))
	b := testutil.ServeHTTP(t, testutil.NewEchoServer("b", 2))
	servers := fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[tools.mcp_servers.b]\ntarget = %q\n", a, b)
	path := writeConfig(t, servers+"[agents.x]\nservers = [\"a\"]\n[agents.y]\nservers = [\"b\"]\n")
	d := newDaemon(t, path)
	x, xChanged := agentClient(t, d, "x")
	y, yChanged := agentClient(t, d, "y")
	if got := listed(t, x); slices.Contains(got, "b__echo") || !slices.Contains(got, "a__echo") {
		t.Fatalf("x lists %v; want a's tools only", got)
	}
	connectedAt := func() map[string]time.Time {
		out := map[string]time.Time{}
		for _, st := range d.Hub().List() {
			out[st.Name] = st.ConnectedAt
		}
		return out
	}
	before := connectedAt()

	if err := os.WriteFile(path, []byte(servers+"[agents.x]\nservers = [\"a\", \"b\"]\ndenied_tools = [\"*tool_*\"]\n[agents.y]\nservers = [\"b\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d.Reload(context.Background())
	select {
	case <-xChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("x's client heard no tools/list_changed after x's table changed")
	}
	if got := listed(t, x); !slices.Contains(got, "b__echo") || slices.Contains(got, "a__tool_0001") {
		t.Errorf("x lists %v after the change; want b's echo, and no filler tool", got)
	}
	listed(t, y) // a round trip: a notification sent before it has arrived
	select {
	case <-yChanged:
		t.Error("y's client heard tools/list_changed for a change of x's table")
	default:
	}
	if after := connectedAt(); !sameTimes(before, after) {
		t.Errorf("a shared server was reconnected by an agent's change: before %v, after %v", before, after)
	}
}

func sameTimes(x, y map[string]time.Time) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if !y[k].Equal(v) {
			return false
		}
	}
	return true
}

// An agent's own file, created and edited while weft runs, applies like
// any config change.
func TestAgentFileIsWatched(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	b := testutil.ServeHTTP(t, testutil.NewEchoServer("b", 1))
	path := writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[tools.mcp_servers.b]\ntarget = %q\n", a, b))
	d := newDaemon(t, path, func(o *daemon.Options) { o.NoWatch = false })
	file := filepath.Join(filepath.Dir(path), "agents", "x", "weft.toml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("servers = [\"a\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	awaitAgent(t, d, "x")
	x, changed := agentClient(t, d, "x")
	if got := listed(t, x); !slices.Contains(got, "a__echo") || slices.Contains(got, "b__echo") {
		t.Fatalf("x lists %v; want a's echo only", got)
	}
	if err := os.WriteFile(file, []byte("servers = [\"b\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("x's client heard no tools/list_changed after its file changed")
	}
	if got := listed(t, x); !slices.Contains(got, "b__echo") || slices.Contains(got, "a__echo") {
		t.Errorf("x lists %v after its file changed; want b's echo only", got)
	}
}

// awaitAgent waits until the daemon serves the named agent (the watcher
// debounces, then reloads).
func awaitAgent(t *testing.T, d *daemon.Daemon, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := d.AgentFace(name)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %s never appeared: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mcp_manage as an agent adds to that agent's own servers — its table, or
// its own file — under its autonomy, and no other client sees the server.
func TestManageAsAgentAddsToItsOwnConfig(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	path := writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[agents.x]\nautonomy = \"full\"\n[agents.ro]\nautonomy = \"read_only\"\n", a))
	file := filepath.Join(filepath.Dir(path), "agents", "y", "weft.toml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("autonomy = \"full\"\nservers = []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The upstreams are made before the daemon, so that they close after it.
	urls := map[string]string{}
	for _, name := range []string{"fx", "fy", "fro"} {
		urls[name] = testutil.ServeHTTP(t, testutil.NewEchoServer(name, 1))
	}
	d := newDaemon(t, path)
	add := func(agent, name string) (string, bool) {
		cs, _ := agentClient(t, d, agent)
		url := urls[name]
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: gateway.ManageToolName, Arguments: map[string]any{
			"action": "add", "name": name, "target": url}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	if text, isErr := add("x", "fx"); isErr {
		t.Fatalf("x's add: %s", text)
	}
	if text, isErr := add("y", "fy"); isErr {
		t.Fatalf("y's add: %s", text)
	}
	if text, isErr := add("ro", "fro"); !isErr || !strings.Contains(text, "read_only") {
		t.Errorf("read_only agent's add = %q %v; want a refusal", text, isErr)
	}
	weft, _ := os.ReadFile(path)
	own, _ := os.ReadFile(file)
	if !strings.Contains(string(weft), "[agents.x.mcp_servers.fx]") || strings.Contains(string(weft), "fy") || strings.Contains(string(weft), "fro") {
		t.Errorf("weft.toml after the adds:\n%s", weft)
	}
	if !strings.Contains(string(own), "[mcp_servers.fy]") {
		t.Errorf("y's file after its add:\n%s", own)
	}
	x, _ := agentClient(t, d, "x")
	y, _ := agentClient(t, d, "y")
	all, _ := agentClient(t, d, "")
	if got := listed(t, x); !slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "fx__") }) {
		t.Errorf("x lists %v; want fx's tools", got)
	}
	if got := listed(t, y); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "fx__") || strings.HasPrefix(n, "a__") }) ||
		!slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "fy__") }) {
		t.Errorf("y lists %v; want fy's tools only", got)
	}
	if got := listed(t, all); slices.ContainsFunc(got, func(n string) bool { return strings.Contains(n, "fx") || strings.Contains(n, "fy") }) {
		t.Errorf("/mcp lists %v; an agent's own server leaked", got)
	}
}

// [gateway] default_agent decides what /mcp and a plain mcp-server serve:
// the named agent's view, or nothing ("none").
func TestDefaultAgent(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	b := testutil.ServeHTTP(t, testutil.NewEchoServer("b", 1))
	servers := fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[tools.mcp_servers.b]\ntarget = %q\n[agents.x]\nservers = [\"a\"]\n", a, b)
	for _, tc := range []struct {
		def       string
		wantTools []string
	}{
		{"", []string{"a__echo", "b__echo"}},
		{"x", []string{"a__echo"}},
		{"none", nil},
	} {
		t.Run("default_agent="+tc.def, func(t *testing.T) {
			d := newDaemon(t, writeConfig(t, fmt.Sprintf("[gateway]\ndefault_agent = %q\n", tc.def)+servers))
			srv := httptest.NewServer(d.Gateway().Handler())
			t.Cleanup(srv.Close)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(),
				&mcp.StreamableClientTransport{Endpoint: srv.URL + gateway.Endpoint}, nil)
			if tc.wantTools == nil {
				if err == nil {
					_ = cs.Close()
					t.Fatal("/mcp answered with default_agent = none")
				}
				if _, err := d.AgentFace(""); err == nil {
					t.Error("a plain mcp-server would serve with default_agent = none")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var got []string
			for _, n := range listed(t, cs) {
				if strings.HasSuffix(n, "__echo") {
					got = append(got, n)
				}
			}
			if !slices.Equal(got, tc.wantTools) {
				t.Errorf("/mcp lists %v; want %v", got, tc.wantTools)
			}
		})
	}
}

// weft__delegate called by an agent's client delegates as that agent: its
// [delegation] settings, and Claude Code reaching weft as it.
func TestDelegateToolAsAgent(t *testing.T) {
	path := writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n\n"+
		"[agents.coder]\nservers = []\n[agents.coder.delegation]\nmodel = \"coder-model\"\n", testutil.FakeClaudeBinary(t)))
	d := newDaemon(t, path)
	cs, _ := agentClient(t, d, "coder")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "write it"}})
	if err != nil || res.IsError {
		t.Fatalf("weft__delegate as coder: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "--model coder-model") || !strings.Contains(text, `"--agent","coder"`) {
		t.Errorf("the delegated Claude Code ran with:\n%s\nwant coder's model and weft mcp-server --agent coder", text)
	}
}

// docServer serves one resource, doc://x, whose text is text.
func docServer(text string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "doc"}, nil)
	s.AddResource(&mcp.Resource{URI: "doc://x", Name: "x"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
	})
	return s
}

// An agent's separate instance of a server lists the same URIs as the
// global one; the agent reads them from its instance, everyone else from
// the global server.
func TestAgentInstanceResources(t *testing.T) {
	global := testutil.ServeHTTP(t, docServer("global"))
	own := testutil.ServeHTTP(t, docServer("x's own"))
	d := newDaemon(t, writeConfig(t, fmt.Sprintf("[tools.mcp_servers.doc]\ntarget = %q\n[agents.x.mcp_servers.doc]\ntarget = %q\n", global, own)))
	read := func(agent string) string {
		t.Helper()
		cs, _ := agentClient(t, d, agent)
		var uris []string
		for r, err := range cs.Resources(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		if !slices.Equal(uris, []string{"doc://x"}) {
			t.Errorf("agent %q lists resources %v; want doc://x", agent, uris)
		}
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "doc://x"})
		if err != nil {
			t.Fatalf("agent %q reads doc://x: %v", agent, err)
		}
		return res.Contents[0].Text
	}
	if got := read("x"); got != "x's own" {
		t.Errorf("x reads %q; want its own instance's", got)
	}
	if got := read(""); got != "global" {
		t.Errorf("/mcp reads %q; want the global server's", got)
	}
}
