package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// TestMain lets the test binary serve MCP over stdio, as a stdio upstream
// for the tests that start one.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv("UPSTREAM_TEST_FAIL") != "":
		failLikeNpx()
		return
	case os.Getenv("UPSTREAM_TEST_CAT") != "":
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return
	}
	if os.Getenv("UPSTREAM_TEST_SERVER") != "" {
		fmt.Fprintln(os.Stderr, "test server starting")
		_ = testServer().Run(context.Background(), &mcp.StdioTransport{})
		return
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text,omitempty"`
}

type echoOut struct {
	Text string `json:"text"`
}

// testServer serves a tool of each kind the tests need, a resource, a
// template and a prompt.
func testServer() *mcp.Server { return testServerReleasing(nil) }

// testServerReleasing is testServer whose block tool also ends when release
// is closed: the SDK's HTTP handler waits for handlers to end on DELETE.
func testServerReleasing(release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1.2.3"}, &mcp.ServerOptions{
		CompletionHandler: func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"done"}}}, nil
		},
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Text: "echo:" + in.Text}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "chatty"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		for i := range 3 {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 3})
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "working"})
		return nil, echoOut{Text: "done"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		roots, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, echoOut{}, err
		}
		el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object"}})
		if err != nil {
			return nil, echoOut{}, err
		}
		return nil, echoOut{Text: fmt.Sprintf("%s %s", roots.Roots[0].URI, el.Action)}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, echoOut{}, errors.New("released")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, echoOut, error) {
		mcp.AddTool(s, &mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut{Text: "grown"}, nil
		})
		return nil, echoOut{Text: "grew"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "exit"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, echoOut, error) {
		os.Exit(3)
		return nil, echoOut{}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://r", Text: "content"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{x}", Name: "t"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt"}}}}, nil
	})
	return s
}

// serveHTTP serves srv over Streamable HTTP through h (nil: directly).
func serveHTTP(t testing.TB, srv *mcp.Server, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// dial connects to an HTTP upstream at url and closes it at the end.
func dial(t testing.TB, url string, opts Options) *Conn {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	c, err := Dial(context.Background(), &config.Server{Name: "s", Type: config.TransportHTTP, Target: url, TimeoutMS: 5000}, opts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// fakePeer is the client side of a call: it records what is relayed to it.
type fakePeer struct {
	mu       sync.Mutex
	progress []any // the tokens of the progress notifications, in order
	logs     []string
}

func (p *fakePeer) CreateMessage(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return &mcp.CreateMessageWithToolsResult{Model: "m"}, nil
}

func (p *fakePeer) Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept"}, nil
}

func (p *fakePeer) ListRoots(context.Context, *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///peer-root"}}}, nil
}

func (p *fakePeer) NotifyProgress(_ context.Context, n *mcp.ProgressNotificationParams) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.progress = append(p.progress, n.ProgressToken)
	return nil
}

func (p *fakePeer) Log(_ context.Context, m *mcp.LoggingMessageParams) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.logs = append(p.logs, logText(m.Data))
	return nil
}

func callText(t *testing.T, res *mcp.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out echoOut
	_ = json.Unmarshal(b, &out)
	return out.Text
}

func TestDialListsEverythingAndReportsTheServer(t *testing.T) {
	c := dial(t, serveHTTP(t, testServer(), nil), Options{})
	info, inv := c.Info(), c.Inventory()
	if info.Name != "test" || info.Version != "1.2.3" || info.ProtocolVersion == "" {
		t.Errorf("info = %+v, want test 1.2.3 with a protocol version", info)
	}
	if len(inv.Tools) != 6 || len(inv.Resources) != 1 || len(inv.Templates) != 1 || len(inv.Prompts) != 1 {
		t.Errorf("inventory: %d tools, %d resources, %d templates, %d prompts; want 6, 1, 1, 1",
			len(inv.Tools), len(inv.Resources), len(inv.Templates), len(inv.Prompts))
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("ping: %v", err)
	}
}

func TestRequestsOfEveryKindReachTheServer(t *testing.T) {
	c := dial(t, serveHTTP(t, testServer(), nil), Options{})
	ctx := context.Background()
	res, err := c.CallTool(ctx, nil, "echo", json.RawMessage(`{"text":"hi"}`), mcp.Meta{"k": "v"})
	if got := callText(t, res, err); got != "echo:hi" {
		t.Errorf("echo = %q", got)
	}
	pr, err := c.GetPrompt(ctx, nil, "p", nil, nil)
	if err != nil || len(pr.Messages) != 1 {
		t.Errorf("prompt: %v %+v", err, pr)
	}
	rr, err := c.ReadResource(ctx, nil, "test://r", nil)
	if err != nil || rr.Contents[0].Text != "content" {
		t.Errorf("resource: %v %+v", err, rr)
	}
	cr, err := c.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"}, Argument: mcp.CompleteParamsArgument{Name: "a"}})
	if err != nil || cr.Completion.Values[0] != "done" {
		t.Errorf("complete: %v %+v", err, cr)
	}
	if err := c.Subscribe(ctx, "test://r"); err != nil {
		t.Errorf("subscribe: %v", err)
	}
	if err := c.Unsubscribe(ctx, "test://r"); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
}

// TestProgressAndLogsReachThePeerBeforeTheResult: progress notifications go
// to the caller with its own token, and everything sent before the result
// is relayed before CallTool returns.
func TestProgressAndLogsReachThePeerBeforeTheResult(t *testing.T) {
	c := dial(t, serveHTTP(t, testServer(), nil), Options{})
	peer := &fakePeer{}
	params := json.RawMessage(`{}`)
	meta := mcp.Meta{"progressToken": "client-token"}
	res, err := c.CallTool(context.Background(), peer, "chatty", params, meta)
	if got := callText(t, res, err); got != "done" {
		t.Fatalf("chatty = %q", got)
	}
	checkChattyRelayed(t, peer)
}

// checkChattyRelayed checks what the chatty tool sent before its result
// reached peer: three progress notifications under the client's own
// token, and one log line.
func checkChattyRelayed(t *testing.T, peer *fakePeer) {
	t.Helper()
	peer.mu.Lock()
	defer peer.mu.Unlock()
	if len(peer.progress) != 3 {
		t.Fatalf("relayed %d progress notifications before the result, want 3", len(peer.progress))
	}
	for _, tok := range peer.progress {
		if tok != "client-token" {
			t.Errorf("progress relayed with token %v, want the client's own", tok)
		}
	}
	if len(peer.logs) != 1 || peer.logs[0] != "working" {
		t.Errorf("logs relayed before the result: %q, want [working]", peer.logs)
	}
}

func TestServerRequestsAreRelayedToTheCallingPeer(t *testing.T) {
	c := dial(t, serveHTTP(t, testServer(), nil), Options{})
	res, err := c.CallTool(context.Background(), &fakePeer{}, "ask", nil, nil)
	if got := callText(t, res, err); got != "file:///peer-root accept" {
		t.Errorf("ask = %q, want the peer's root and answer", got)
	}
	res, err = c.CallTool(context.Background(), nil, "ask", nil, nil)
	if err == nil && !res.IsError {
		t.Errorf("ask without a peer succeeded: %+v", res)
	}
}

func TestListChangedRelistsAndNotifies(t *testing.T) {
	changed := make(chan struct{}, 4)
	c := dial(t, serveHTTP(t, testServer(), nil), Options{OnInventory: func() { changed <- struct{}{} }})
	res, err := c.CallTool(context.Background(), nil, "grow", nil, nil)
	callText(t, res, err)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no re-list after list_changed")
	}
	found := false
	for _, tool := range c.Inventory().Tools {
		found = found || tool.Name == "grown"
	}
	if !found {
		t.Fatal("the re-listed inventory lacks the new tool")
	}
}

func TestCloseDuringACallFailsItWithErrClosedInFlight(t *testing.T) {
	release := make(chan struct{})
	url := serveHTTP(t, testServerReleasing(release), nil)
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	c := dial(t, url, Options{})
	err := closeDuringCall(c, func() error {
		_, err := c.CallTool(context.Background(), nil, "block", nil, nil)
		return err
	})
	if !errors.Is(err, ErrClosedInFlight) {
		t.Fatalf("call cut by Close: %v, want ErrClosedInFlight", err)
	}
}

// closeDuringCall runs call, closes c once the call is in flight, and
// returns the call's error.
func closeDuringCall(c *Conn, call func() error) error {
	done := make(chan error, 1)
	go func() { done <- call() }()
	for { // the call is registered before it is sent
		c.router.mu.Lock()
		n := len(c.router.recent)
		c.router.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	c.Close(context.Background())
	return <-done
}

// hangOn holds every request whose body mentions method until the client
// gives up, as a server that ignores that method does.
func hangOn(method string, after func() bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), `"method":"`+method+`"`) && (after == nil || after()) {
				<-r.Context().Done()
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestHandshakeFallsBackToLegacyWhenDiscoveryIsIgnored(t *testing.T) {
	url := serveHTTP(t, testServer(), hangOn("server/discover", nil))
	c := dial(t, url, Options{ProbeTimeout: 200 * time.Millisecond})
	if v := c.Info().ProtocolVersion; v != LegacyProtocolVersion {
		t.Fatalf("protocol %q, want the legacy fallback %q", v, LegacyProtocolVersion)
	}
	res, err := c.CallTool(context.Background(), nil, "echo", json.RawMessage(`{"text":"x"}`), nil)
	if got := callText(t, res, err); got != "echo:x" {
		t.Fatalf("echo after the fallback = %q", got)
	}
}

func TestPinnedProtocolSkipsTheProbe(t *testing.T) {
	url := serveHTTP(t, testServer(), nil)
	c, err := Dial(context.Background(), &config.Server{Name: "s", Type: config.TransportHTTP, Target: url, ProtocolVersion: LegacyProtocolVersion}, Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if v := c.Info().ProtocolVersion; v != LegacyProtocolVersion {
		t.Fatalf("protocol %q, want the pinned %q", v, LegacyProtocolVersion)
	}
}

func TestKeepaliveEndsAHungSession(t *testing.T) {
	var dialed sync.WaitGroup
	dialed.Add(1)
	var ready bool
	var mu sync.Mutex
	after := func() bool { mu.Lock(); defer mu.Unlock(); return ready }
	url := serveHTTP(t, testServer(), hangOn("ping", after))
	closed := make(chan error, 1)
	c := dial(t, url, Options{KeepAlive: 100 * time.Millisecond, OnClosed: func(_ *Conn, err error) { closed <- err }})
	mu.Lock()
	ready = true // pings from now on are never answered
	mu.Unlock()
	select {
	case err := <-closed:
		if c.newProtocol() && !errors.Is(err, ErrHung) {
			t.Fatalf("session ended with %v, want ErrHung", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a session whose pings go unanswered was not ended")
	}
	if !c.Broken() {
		t.Error("Broken() is false after the session ended")
	}
}

func TestDialFailsClearlyOnAnUnreachableServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Dial(ctx, &config.Server{Name: "gone", Type: config.TransportHTTP, Target: "http://127.0.0.1:1/mcp"}, Options{Logger: quiet()})
	if err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("dial of a closed port: %v, want an error naming the server", err)
	}
}

// stdioServer is the test binary itself as a stdio upstream.
func stdioServer() *config.Server {
	return &config.Server{Name: "child", Type: config.TransportStdio, Target: os.Args[0],
		Env: map[string]string{"UPSTREAM_TEST_SERVER": "1"}, TimeoutMS: 10_000}
}

func TestStdioChildServesAndEndsWithClose(t *testing.T) {
	closedUnasked := make(chan error, 1)
	c, err := Dial(context.Background(), stdioServer(), Options{Logger: quiet(), OnClosed: func(_ *Conn, err error) { closedUnasked <- err }})
	if err != nil {
		t.Fatalf("dial the stdio child: %v", err)
	}
	res, err := c.CallTool(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{"text":"stdio"}`), nil)
	if got := callText(t, res, err); got != "echo:stdio" {
		t.Fatalf("echo over stdio = %q", got)
	}
	c.Close(context.Background())
	if !c.proc.exited() {
		t.Fatal("the child was not reaped by Close")
	}
	select {
	case err := <-closedUnasked:
		t.Fatalf("OnClosed called for a Close: %v", err)
	default:
	}
}

func TestStdioChildExitFailsTheCallAndReportsTheLoss(t *testing.T) {
	closed := make(chan error, 1)
	c, err := Dial(context.Background(), stdioServer(), Options{Logger: quiet(), OnClosed: func(_ *Conn, err error) { closed <- err }})
	if err != nil {
		t.Fatalf("dial the stdio child: %v", err)
	}
	defer c.Close(context.Background())
	_, err = c.CallTool(context.Background(), nil, "exit", nil, nil)
	if !errors.Is(err, ErrUpstreamGone) {
		t.Fatalf("call whose server exits: %v, want ErrUpstreamGone", err)
	}
	if !c.Broken() {
		t.Error("Broken() is false after the child exited")
	}
	select {
	case err := <-closed:
		if !strings.Contains(err.Error(), "process exited") {
			t.Errorf("OnClosed err = %v, want it to say the process exited", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnClosed not called after the child exited")
	}
}

func TestStdioCommandThatCannotStart(t *testing.T) {
	cfg := stdioServer()
	cfg.Target = "/nonexistent/weft-test"
	if _, err := Dial(context.Background(), cfg, Options{Logger: quiet()}); err == nil || !strings.Contains(err.Error(), "child") {
		t.Fatalf("dial of a missing command: %v, want an error naming the server", err)
	}
}

func TestChildEnvKeepsTheSafeSetAndDeclared(t *testing.T) {
	parent := []string{"PATH=/bin", "HOME=/h", "SECRET=x", "LC_ALL=C", "LANG=en"}
	got := strings.Join(ChildEnv(parent, map[string]string{"A": "1", "LANG": "fr"}, false), " ")
	for _, want := range []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "A=1", "LANG=fr"} {
		if !strings.Contains(got, want) {
			t.Errorf("child env %q lacks %s", got, want)
		}
	}
	if strings.Contains(got, "SECRET") || strings.Contains(got, "LANG=en") {
		t.Errorf("child env %q has a variable it must not", got)
	}
	if all := ChildEnv(parent, nil, true); len(all) != len(parent) {
		t.Errorf("inherit_env: %d variables, want all %d", len(all), len(parent))
	}
}
