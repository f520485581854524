package gateway_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/naming"
	"github.com/weft-dev/weft/internal/testutil"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(rawServerEnv) != "" {
		serveRawShapes()
		return
	}
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("internal/poll.runtime_pollWait"))
}

// recorder is a downstream client that answers every server-to-client
// request and records notifications.
type recorder struct {
	progress     chan *mcp.ProgressNotificationParams
	toolsChanged chan struct{}
}

func (r *recorder) client(withCaps bool) *mcp.Client {
	opts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			r.progress <- req.Params
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case r.toolsChanged <- struct{}{}:
			default:
			}
		},
	}
	if withCaps {
		opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			q := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "answer to " + q}}, nil
		}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}
	} else {
		opts.Capabilities = &mcp.ClientCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	if withCaps {
		c.AddRoots(&mcp.Root{URI: "file:///tmp/root-a", Name: "a"})
	}
	return c
}

type fixture struct {
	hub     *hub.Hub
	session *mcp.ClientSession
	rec     *recorder
}

var longName = strings.Repeat("very_long_tool_name_", 10) // 200 chars

func newFixture(t *testing.T, withCaps bool) *fixture {
	t.Helper()
	ctx := context.Background()
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames, MaxTools: 50})
	gw := gateway.New(h, gateway.Options{Version: "test"})
	servers := map[string]*config.Server{
		"alpha": {Name: "alpha", Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "alpha"}))},
		"beta":  {Name: "beta", Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "beta"}))},
		"gamma": {Name: "gamma", Type: config.TransportStdio, Target: testutil.FakeServerBinary(t),
			Args: []string{"--name", "gamma", "--banner", "--extra-tool", longName}},
	}
	res := h.Apply(ctx, servers)
	if len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	t.Cleanup(func() { h.Close(context.Background()) })

	rec := &recorder{toolsChanged: make(chan struct{}, 1), progress: make(chan *mcp.ProgressNotificationParams, 100)}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := rec.client(withCaps).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return &fixture{hub: h, session: cs, rec: rec}
}

func (f *fixture) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestSameToolNameOnTwoServersStaysDistinct(t *testing.T) {
	f := newFixture(t, true)
	for _, srv := range []string{"alpha", "beta", "gamma"} {
		got := text(f.call(t, srv+"__echo", map[string]any{"text": "hi"}))
		if !strings.Contains(got, srv+":hi") {
			t.Errorf("%s__echo answered %q, want it to come from %s", srv, got, srv)
		}
	}
}

func TestLongToolNameIsShortenedAndCallable(t *testing.T) {
	f := newFixture(t, true)
	want := naming.Join("gamma", "__", longName)
	if len(want) > naming.MaxLen || want == "gamma__"+longName {
		t.Fatalf("name not shortened: %q", want)
	}
	tools, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range tools.Tools {
		if !naming.Valid(tl.Name) {
			t.Errorf("listed tool %q breaks the name rules", tl.Name)
		}
		found = found || tl.Name == want
	}
	if !found {
		t.Fatalf("shortened tool %q not listed", want)
	}
	if got := text(f.call(t, want, map[string]any{"text": "x"})); got != `{"text":"long:x"}` && !strings.Contains(got, "long:x") {
		t.Fatalf("shortened tool answered %q", got)
	}
}

func TestProgressSamplingElicitationRootsRoundTrip(t *testing.T) {
	f := newFixture(t, true)
	for _, srv := range []string{"alpha", "gamma"} { // HTTP and stdio upstreams
		t.Run(srv, func(t *testing.T) {
			ctx := context.Background()
			params := &mcp.CallToolParams{Name: srv + "__progress", Arguments: map[string]any{}}
			params.SetProgressToken("tok-" + srv)
			if _, err := f.session.CallTool(ctx, params); err != nil {
				t.Fatal(err)
			}
			// Relayed notifications may trail the result: await them.
			timeout := time.After(10 * time.Second)
			for mine := 0; mine < 3; {
				select {
				case p := <-f.rec.progress:
					if p.ProgressToken != "tok-"+srv {
						t.Fatalf("progress relayed with token %v, want the client's own tok-%s", p.ProgressToken, srv)
					}
					mine++
				case <-timeout:
					t.Fatalf("relayed %d progress notifications, want 3", mine)
				}
			}
			if got := text(f.call(t, srv+"__sample", map[string]any{"text": "2+2"})); !strings.Contains(got, "sampled:answer to 2+2") {
				t.Errorf("sampling answered %q", got)
			}
			if got := text(f.call(t, srv+"__elicit", map[string]any{})); !strings.Contains(got, "elicited:accept:Ada") {
				t.Errorf("elicitation answered %q", got)
			}
			if got := text(f.call(t, srv+"__roots", map[string]any{})); !strings.Contains(got, "roots:file:///tmp/root-a") {
				t.Errorf("roots answered %q", got)
			}
		})
	}
}

func TestClientWithoutCapabilitiesGetsClearError(t *testing.T) {
	f := newFixture(t, false)
	for tool, args := range map[string]any{"alpha__sample": map[string]any{"text": "q"}, "alpha__elicit": map[string]any{}, "alpha__roots": map[string]any{}} {
		res := f.call(t, tool, args)
		if !res.IsError || !strings.Contains(text(res), "does not support") {
			t.Errorf("%s: want a tool error saying the client does not support it, got isError=%v %q", tool, res.IsError, text(res))
		}
	}
}

func TestUnknownToolIsAnError(t *testing.T) {
	f := newFixture(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "nope__nothing", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "nope__nothing") {
		t.Fatalf("want an error naming the tool, got %v", err)
	}
}

func TestResourcesAndPromptsAreRouted(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	for _, srv := range []string{"alpha", "beta", "gamma"} {
		res, err := f.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "fake://" + srv + "/readme"})
		if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "readme of "+srv {
			t.Errorf("read fake://%s/readme: %v %+v", srv, err, res)
		}
		p, err := f.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: srv + "__greet", Arguments: map[string]string{"who": "bob"}})
		if err != nil || p.Messages[0].Content.(*mcp.TextContent).Text != "hello bob" {
			t.Errorf("prompt %s__greet: %v", srv, err)
		}
	}
}

func TestRemoveUpdatesClientsAndRejectsCalls(t *testing.T) {
	f := newFixture(t, true)
	if err := f.hub.Remove(context.Background(), "beta"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.rec.toolsChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed after remove")
	}
	tools, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if strings.HasPrefix(tl.Name, "beta__") {
			t.Errorf("removed server's tool %s still listed", tl.Name)
		}
	}
	if err := f.hub.Remove(context.Background(), "beta"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("second remove: want not found, got %v", err)
	}
}

func TestSearchAndCallMetaToolsReachToolsPastTheCap(t *testing.T) {
	ctx := context.Background()
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames, MaxTools: 3})
	gw := gateway.New(h, gateway.Options{})
	url := testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "many", NumTools: 10}))
	if _, err := h.Add(ctx, &config.Server{Name: "many", Type: config.TransportHTTP, Target: url}); err != nil {
		t.Fatal(err)
	}
	defer h.Close(ctx)
	ct, st := mcp.NewInMemoryTransports()
	ss, _ := gw.Server().Connect(ctx, st, nil)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, _ := cs.ListTools(ctx, nil)
	if got := len(tools.Tools); got != 3+len(gateway.BuiltinNames) {
		t.Fatalf("listed %d tools, want the cap (3) plus %d built-ins", got, len(gateway.BuiltinNames))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__search_tools", Arguments: map[string]any{"query": "tool_9"}})
	if err != nil {
		t.Fatal(err)
	}
	var found struct {
		Tools []struct {
			Name   string `json:"name"`
			Listed bool   `json:"listed"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(text(res)), &found); err != nil || len(found.Tools) != 1 || found.Tools[0].Name != "many__tool_9" || found.Tools[0].Listed {
		t.Fatalf("search for tool_9: %v %s", err, text(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__call_tool", Arguments: map[string]any{"name": "many__tool_9", "arguments": map[string]any{"text": "z"}}})
	if err != nil || !strings.Contains(text(res), "tool_9:z") {
		t.Fatalf("call through weft__call_tool: %v %s", err, text(res))
	}
}
