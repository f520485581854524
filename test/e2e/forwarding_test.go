//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// forwardWait bounds every wait for something relayed through weft.
const forwardWait = 20 * time.Second

// fixture is a go-sdk upstream served in the test process, so that what
// reaches the upstream through weft (cancellation) can be asserted where it
// arrives.
type fixture struct {
	started   chan struct{} // a call of block began
	cancelled chan any      // request ids of notifications/cancelled received
	unsubs    chan string   // URIs of resources/unsubscribe received
	once      sync.Once     // closes started
	server    *mcp.Server   // the upstream
}

// watchedURI is the fixture's resource that clients subscribe to.
const watchedURI = "fwd://watched"

type whoArgs struct {
	Who string `json:"who"`
}

func newFixture() *fixture {
	f := &fixture{started: make(chan struct{}), cancelled: make(chan any, 8), unsubs: make(chan string, 8)}
	// Legacy protocol versions only: sampling and elicitation are
	// server-to-client requests, which 2026-07-28 sessions forbid.
	f.server = mcp.NewServer(&mcp.Implementation{Name: "forwarding-fixture", Version: "1.0.0"},
		&mcp.ServerOptions{
			SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18"},
			SubscribeHandler:          func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(_ context.Context, req *mcp.UnsubscribeRequest) error {
				f.unsubs <- req.Params.URI
				return nil
			},
		})
	f.server.AddReceivingMiddleware(f.watchCancel)
	f.server.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "watched"}}}, nil
		})
	tool := func(name string, h func(context.Context, *mcp.CallToolRequest, whoArgs) (string, error)) {
		mcp.AddTool(f.server, &mcp.Tool{Name: name, Description: name + " (forwarding fixture)"},
			func(ctx context.Context, req *mcp.CallToolRequest, in whoArgs) (*mcp.CallToolResult, any, error) {
				text, err := h(ctx, req, in)
				if err != nil {
					return nil, nil, err
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
			})
	}
	tool("progress", f.progress)
	tool("log", f.log)
	tool("block", f.block)
	tool("sample", f.sample)
	tool("elicit", f.elicit)
	tool("elicit-progress", f.elicitProgress)
	return f
}

// watchCancel records every notifications/cancelled the upstream receives.
func (f *fixture) watchCancel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/cancelled" {
			if p, ok := req.GetParams().(*mcp.CancelledParams); ok {
				f.cancelled <- p.RequestID
			}
		}
		return next(ctx, method, req)
	}
}

func (f *fixture) progress(ctx context.Context, req *mcp.CallToolRequest, in whoArgs) (string, error) {
	token := req.Params.GetProgressToken()
	for i := 1; i <= 3 && token != nil; i++ {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(i), Total: 3, Message: fmt.Sprintf("%s step %d", in.Who, i)})
		if err != nil {
			return "", err
		}
	}
	return "progressed " + in.Who, nil
}

func (f *fixture) log(ctx context.Context, req *mcp.CallToolRequest, in whoArgs) (string, error) {
	for i := 1; i <= 2; i++ {
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "fixture", Data: fmt.Sprintf("log-%s-%d", in.Who, i)})
		if err != nil {
			return "", err
		}
	}
	return "logged " + in.Who, nil
}

func (f *fixture) block(ctx context.Context, _ *mcp.CallToolRequest, _ whoArgs) (string, error) {
	f.once.Do(func() { close(f.started) })
	<-ctx.Done()
	return "", ctx.Err()
}

func (f *fixture) sample(ctx context.Context, req *mcp.CallToolRequest, _ whoArgs) (string, error) {
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sampled %v", res.Content), nil
}

func (f *fixture) elicit(ctx context.Context, req *mcp.CallToolRequest, _ whoArgs) (string, error) {
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
	if err != nil {
		return "", err
	}
	return "elicited " + res.Action, nil
}

// elicitProgress asks the client, then reports progress and a log message
// under the call's token, as a long task that needs a person's go-ahead does.
func (f *fixture) elicitProgress(ctx context.Context, req *mcp.CallToolRequest, in whoArgs) (string, error) {
	answer, err := f.elicit(ctx, req, in)
	if err != nil {
		return "", err
	}
	if token := req.Params.GetProgressToken(); token != nil {
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 1, Total: 1}); err != nil {
			return "", err
		}
	}
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "after-" + in.Who}); err != nil {
		return "", err
	}
	return answer, nil
}

// listener is a downstream client session with what weft relayed to it.
type listener struct {
	name     string
	cs       *mcp.ClientSession
	progress chan *mcp.ProgressNotificationParams
	logs     chan string
	updates  chan string // URIs of notifications/resources/updated
}

// listen connects a go-sdk client to weft that records progress and log
// messages and asks weft for every log level. It speaks 2025-11-25, whose
// session-wide logging/setLevel these tests use; TestRevisionMatrix covers
// the same forwarding for 2026-07-28 clients.
func listen(t *testing.T, url, name string) *listener {
	t.Helper()
	return listenAt(t, url, name, "2025-11-25")
}

// listenAt is listen with the client on revision ("" for the go-sdk default,
// 2026-07-28, where there is no session-wide log level to set).
func listenAt(t *testing.T, url, name, revision string) *listener {
	t.Helper()
	l := &listener{name: name, progress: make(chan *mcp.ProgressNotificationParams, 64), logs: make(chan string, 64), updates: make(chan string, 8)}
	c := mcp.NewClient(&mcp.Implementation{Name: name}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			l.progress <- req.Params
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			l.logs <- fmt.Sprint(req.Params.Data)
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			l.updates <- req.Params.URI
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), forwardWait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("connect %s: %v", name, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if revision == "" {
		l.cs = cs
		return l
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatalf("%s: logging/setLevel: %v", name, err)
	}
	l.cs = cs
	return l
}

// call calls a fixture tool through weft and returns its text; a tool error
// is returned as an error.
func (l *listener) call(ctx context.Context, tool, who string, token any) (string, error) {
	params := &mcp.CallToolParams{Name: "fwd__" + tool, Arguments: map[string]any{"who": who}}
	if token != nil {
		params.SetProgressToken(token)
	}
	res, err := l.cs.CallTool(ctx, params)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", b.String())
	}
	return b.String(), nil
}

// startForwarding starts the fixture, and weft serving it as server fwd.
func startForwarding(t *testing.T) (*fixture, *env, *served) {
	t.Helper()
	f := newFixture()
	url := testutil.ServeHTTP(t, f.server)
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[tools.mcp_servers.fwd]\ntarget = %q\n", url))
	s := e.serve()
	if !strings.Contains(s.stderr.String(), "1 of 1 MCP servers active") {
		t.Fatalf("the fixture did not connect:\n%s", s.stderr.String())
	}
	return f, e, s
}

// liveServer is one server in `weft mcp list --json` of a running weft.
type liveServer struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Tools    int    `json:"tools"`
	InFlight int64  `json:"in_flight"`
}

// liveServers reads the live status of every server from the running weft.
func liveServers(t *testing.T, e *env) []liveServer {
	t.Helper()
	out, errOut, code := e.run("mcp", "list", "--json")
	var l struct {
		Source  string       `json:"source"`
		Servers []liveServer `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &l); err != nil || code != 0 || !strings.HasPrefix(l.Source, "live") {
		t.Fatalf("mcp list --json did not give live status (code %d, %v): %s %s", code, err, out, errOut)
	}
	return l.Servers
}

// inFlight reads the fixture's calls in flight from the running weft.
func inFlight(t *testing.T, e *env) int64 {
	t.Helper()
	servers := liveServers(t, e)
	if len(servers) != 1 {
		t.Fatalf("%d servers listed, want the fixture alone", len(servers))
	}
	return servers[0].InFlight
}

func TestForwardProgressReachesEachClientUnderItsOwnToken(t *testing.T) {
	_, _, s := startForwarding(t)
	clients := []*listener{listen(t, s.url, "A"), listen(t, s.url, "B")}
	tokens := []any{"token-A", 7}
	ctx, cancel := context.WithTimeout(context.Background(), forwardWait)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, len(clients))
	for i, l := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.call(ctx, "progress", l.name, tokens[i]); err != nil {
				errs <- fmt.Errorf("%s: %w", l.name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, l := range clients {
		for n := 1; n <= 3; n++ {
			select {
			case p := <-l.progress:
				if fmt.Sprint(p.ProgressToken) != fmt.Sprint(tokens[i]) || !strings.HasPrefix(p.Message, l.name+" ") {
					t.Errorf("%s got progress %q under token %v, want its own under %v", l.name, p.Message, p.ProgressToken, tokens[i])
				}
			case <-ctx.Done():
				t.Fatalf("%s received %d of 3 progress notifications", l.name, n-1)
			}
		}
	}
}

func TestForwardLogMessagesReachTheClientWhoseCallCausedThem(t *testing.T) {
	_, _, s := startForwarding(t)
	a, b := listen(t, s.url, "A"), listen(t, s.url, "B")
	ctx, cancel := context.WithTimeout(context.Background(), forwardWait)
	defer cancel()
	for _, l := range []*listener{a, b} { // one after the other
		if _, err := l.call(ctx, "log", l.name, nil); err != nil {
			t.Fatalf("%s: %v", l.name, err)
		}
		for n := 1; n <= 2; n++ {
			select {
			case msg := <-l.logs:
				if want := fmt.Sprintf("log-%s-%d", l.name, n); msg != want {
					t.Errorf("%s got log message %q, want %q", l.name, msg, want)
				}
			case <-ctx.Done():
				t.Fatalf("%s received %d of its 2 log messages", l.name, n-1)
			}
		}
	}
	select {
	case msg := <-a.logs:
		t.Errorf("A got %q, caused by B's call", msg)
	default:
	}
}

func TestForwardCancellationReachesUpstreamAndEndsTheCall(t *testing.T) {
	for _, rev := range []string{"2025-11-25", ""} {
		name := rev
		if name == "" {
			name = "2026-07-28"
		}
		t.Run("client-"+name, func(t *testing.T) { testCancellation(t, rev) })
	}
}

// testCancellation: a client on revision cancels a call in flight (a
// notification on a legacy session, a closed request on 2026-07-28); weft
// cancels the upstream request.
func testCancellation(t *testing.T, revision string) {
	f, e, s := startForwarding(t)
	a := listenAt(t, s.url, "A", revision)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := a.call(ctx, "block", "A", nil)
		done <- err
	}()
	select {
	case <-f.started:
	case <-time.After(forwardWait):
		t.Fatal("the blocking call never reached the upstream")
	}
	if n := inFlight(t, e); n != 1 {
		t.Errorf("in flight during the call: %d, want 1", n)
	}
	cancel()
	select {
	case id := <-f.cancelled:
		t.Logf("the upstream received notifications/cancelled for request %v", id)
	case <-time.After(forwardWait):
		t.Fatal("the upstream never received notifications/cancelled")
	}
	if err := <-done; err == nil {
		t.Error("the cancelled call returned a result")
	}
	// Nothing announces the decrement: poll the live status, as a user would.
	deadline := time.Now().Add(forwardWait)
	for n := inFlight(t, e); n != 0; n = inFlight(t, e) {
		if time.Now().After(deadline) {
			t.Fatalf("in flight still %d after the cancelled call ended", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestForwardServerRequestToClientWithoutCapabilityFailsClearly(t *testing.T) {
	_, _, s := startForwarding(t)
	plain := listen(t, s.url, "plain") // declares neither sampling nor elicitation
	for tool, want := range map[string]string{"sample": "does not support sampling", "elicit": "does not support elicitation"} {
		ctx, cancel := context.WithTimeout(context.Background(), forwardWait)
		_, err := plain.call(ctx, tool, "plain", nil)
		hung := ctx.Err() != nil
		cancel()
		switch {
		case err == nil:
			t.Errorf("%s succeeded for a client without the capability", tool)
		case hung:
			t.Errorf("%s hung until the deadline: %v", tool, err)
		case !strings.Contains(err.Error(), want):
			t.Errorf("%s failed with %q, want it to say %q", tool, err, want)
		}
	}
}

func TestForwardResourceSubscriptionReachesOnlySubscribedClients(t *testing.T) {
	f, _, s := startForwarding(t)
	a, b := listen(t, s.url, "A"), listen(t, s.url, "B")
	ctx, cancel := context.WithTimeout(context.Background(), forwardWait)
	defer cancel()
	if err := a.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatalf("subscribe through weft: %v", err)
	}
	// weft answered after the upstream recorded its own subscription.
	if err := f.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-a.updates:
		if uri != watchedURI {
			t.Errorf("A was told %s updated, want %s", uri, watchedURI)
		}
	case <-ctx.Done():
		t.Fatal("the upstream's resources/updated never reached the subscribed client")
	}
	select {
	case uri := <-b.updates:
		t.Errorf("B, not subscribed, was told %s updated", uri)
	default:
	}
	if err := a.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Fatalf("unsubscribe through weft: %v", err)
	}
	select {
	case uri := <-f.unsubs:
		if uri != watchedURI {
			t.Errorf("the upstream was asked to unsubscribe from %s", uri)
		}
	case <-ctx.Done():
		t.Fatal("the last client's unsubscribe never reached the upstream")
	}
	if err := a.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "fwd://nowhere"}); err == nil {
		t.Error("subscribing to a URI no server lists succeeded")
	}

	// A client that leaves without unsubscribing takes its subscription along.
	if err := b.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatalf("B: subscribe through weft: %v", err)
	}
	_ = b.cs.Close()
	select {
	case <-f.unsubs:
	case <-ctx.Done():
		t.Fatal("the subscription of a client that left was never withdrawn at the upstream")
	}
}
