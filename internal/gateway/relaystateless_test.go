package gateway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// callKinds records the Content-Type of each answered tools/call POST and
// whether it was a retry (it carried a request state), to tell a relayed
// call (application/json) from one go-sdk answered (text/event-stream).
type callKinds struct {
	mu  sync.Mutex
	got []string
}

func (k *callKinds) RoundTrip(r *http.Request) (*http.Response, error) {
	var retry bool
	if r.Body != nil && r.Header.Get("Mcp-Method") == "tools/call" {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		retry = strings.Contains(string(body), `"requestState"`)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Header.Get("Mcp-Method") == "tools/call" {
		kind := strings.Split(resp.Header.Get("Content-Type"), ";")[0]
		if retry {
			kind = "retry " + kind
		}
		k.mu.Lock()
		k.got = append(k.got, kind)
		k.mu.Unlock()
	}
	return resp, err
}

func (k *callKinds) take() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.got
	k.got = nil
	return out
}

// statelessFace serves a face with the HTTP upstream "alpha" and returns
// it with its address; calls records each tools/call the face's receiving
// middleware sees end, with the error of its context then.
func statelessFace(t *testing.T, extra map[string]*config.Server) (*Gateway, string, chan error) {
	t.Helper()
	up := testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "alpha"}))
	ended := make(chan error, 16)
	mw := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				select {
				case ended <- ctx.Err():
				default:
				}
			}
			return res, err
		}
	}
	g, addr, _ := serveFaceOf(t, Options{Version: "test", Middleware: []mcp.Middleware{mw}}, HTTPOptions{})
	servers := map[string]*config.Server{"alpha": {Name: "alpha", Type: config.TransportHTTP, Target: up}}
	for name, s := range extra {
		servers[name] = s
	}
	if res := g.hub.Apply(context.Background(), servers); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	return g, addr, ended
}

// defaultClient connects a go-sdk client that asks for its default
// revision, 2026-07-28, whose requests the face serves statelessly.
func defaultClient(t *testing.T, addr string, opts *mcp.ClientOptions) (*mcp.ClientSession, *callKinds) {
	t.Helper()
	k := &callKinds{}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Endpoint, HTTPClient: &http.Client{Transport: k}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stateless-test", Version: "1"}, opts).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v < newestVersion {
		t.Fatalf("the default client negotiated %s, want %s or later", v, newestVersion)
	}
	return cs, k
}

func TestStatelessRelayAnswersTheDefaultClient(t *testing.T) {
	_, addr, _ := statelessFace(t, nil)
	cs, k := defaultClient(t, addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 3 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "alpha:hi") {
			t.Fatalf("call %d answered %q", i, got)
		}
	}
	if got := k.take(); strings.Join(got, ",") != "application/json,application/json,application/json" {
		t.Fatalf("plain stateless calls were answered as %v, want application/json (relayed)", got)
	}
	// An unknown tool is go-sdk's to answer (TestStatelessRelayAnswersAsGoSDK
	// compares the answers).
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__nope"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("unknown tool: %v", err)
	}
}

// TestStatelessRelayParksForInput: an upstream that asks the client for
// input during a relayed call gets its answer through weft's parking: the
// relay answers input-required, the client's retry goes to go-sdk, which
// resumes the parked call.
func TestStatelessRelayParksForInput(t *testing.T) {
	_, addr, _ := statelessFace(t, nil)
	cs, k := defaultClient(t, addr, &mcp.ClientOptions{
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "42"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{{"alpha__sample", map[string]any{"text": "q"}, "42"}, {"alpha__elicit", nil, "Ada"}} {
		t.Run(c.tool, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, c.want) {
				t.Fatalf("answered %q, want %q in it", got, c.want)
			}
			if got := strings.Join(k.take(), ","); got != "application/json,retry text/event-stream" {
				t.Fatalf("the call and its retry were answered as %s, want the relay's input-required, then go-sdk", got)
			}
		})
	}
}

func TestStatelessRelayedCallEndsWithThePOST(t *testing.T) {
	_, addr, ended := statelessFace(t, nil)
	cs, k := defaultClient(t, addr, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	callEndsWithItsPOST(ctx, t, cs, ended)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "after"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "alpha:after") {
		t.Fatalf("call after a cancellation: %v %+v", err, res)
	}
	if got := k.take(); strings.Join(got, ",") != "application/json" { // the cancelled call has no answer
		t.Fatalf("answered as %v, want application/json (relayed)", got)
	}
}

// callEndsWithItsPOST makes a long call that the client gives up on and
// checks that the call ended then, its context cancelled (ended has the
// context's error of each call the face's middleware saw end).
func callEndsWithItsPOST(ctx context.Context, t *testing.T, cs *mcp.ClientSession, ended chan error) {
	t.Helper()
	callCtx, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	if _, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "alpha__sleep", Arguments: map[string]any{"ms": 60000}}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled call: %v", err)
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the call ended with its context %v, want cancelled", err)
		}
	case <-ctx.Done():
		t.Fatal("the call went on after its POST closed")
	}
}

// headerServer has a tool binding an argument to an Mcp-Param header.
func headerServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "beta", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "pick", InputSchema: map[string]any{
		"type":       "object",
		"properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}},
	}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "picked"}}}, nil
	})
	return s
}

const rawMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// TestStatelessRelayAnswersAsGoSDK posts the same requests to the face and
// to go-sdk's own stateless handler of the same server: status, kind of
// body and the JSON-RPC message must match (but for the request state weft
// mints), whether the relay takes the request or leaves it to go-sdk.
func TestStatelessRelayAnswersAsGoSDK(t *testing.T) {
	up := testutil.ServeHTTP(t, headerServer())
	g, addr, _ := statelessFace(t, map[string]*config.Server{"beta": {Name: "beta", Type: config.TransportHTTP, Target: up},
		"shapes": shapesServer()}) // a stdio upstream: raw results (rawslot.go)
	sdk := serveSDKStateless(t, g)
	call := func(name, params string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + rawMeta + `,"name":"` + name + `"` + params + `}}`
	}
	cases := []struct {
		name, body, tool string
		header           map[string]string
		relayed          bool
	}{
		{name: "echo", body: call("alpha__echo", `,"arguments":{"text":"hi"}`), tool: "alpha__echo", relayed: true},
		{name: "no arguments", body: call("alpha__echo", ``), tool: "alpha__echo", relayed: true},
		{name: "null arguments", body: call("alpha__elicit", `,"arguments":null`), tool: "alpha__elicit", relayed: true},
		{name: "tool error", body: call("alpha__echo", `,"arguments":{"text":5}`), tool: "alpha__echo", relayed: true},
		{name: "input required", body: call("alpha__elicit", `,"arguments":{}`), tool: "alpha__elicit", relayed: true},
		{name: "raw text", body: call("shapes__text", `,"arguments":{}`), tool: "shapes__text", relayed: true},
		{name: "raw structured", body: call("shapes__structured", `,"arguments":{}`), tool: "shapes__structured", relayed: true},
		{name: "raw isError", body: call("shapes__fails", `,"arguments":{}`), tool: "shapes__fails", relayed: true},
		{name: "raw empty content", body: call("shapes__empty", `,"arguments":null`), tool: "shapes__empty", relayed: true},
		{name: "raw own _meta", body: call("shapes__meta", ``), tool: "shapes__meta", relayed: true},
		{name: "raw own server info", body: call("shapes__named", ``), tool: "shapes__named", relayed: true},
		{name: "raw upstream error", body: call("shapes__refuses", ``), tool: "shapes__refuses", relayed: true},
		{name: "no capabilities", tool: "alpha__echo",
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"alpha__echo"}}`},
		{name: "unreadable capabilities", tool: "alpha__echo",
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":5}},"name":"alpha__echo"}}`},
		{name: "bad client info", tool: "alpha__echo",
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"x"},"name":"alpha__echo"}}`},
		{name: "no _meta", tool: "alpha__echo", body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"alpha__echo"}}`},
		{name: "progress token", tool: "alpha__echo",
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"alpha__echo","arguments":{"text":"hi"}}}`},
		{name: "log level", tool: "alpha__echo",
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"alpha__echo","arguments":{"text":"hi"}}}`},
		{name: "stale request state", body: call("alpha__elicit", `,"requestState":"weft-parked:00","inputResponses":{}`), tool: "alpha__elicit"},
		{name: "unknown tool", body: call("alpha__nope", ``), tool: "alpha__nope"},
		{name: "Mcp-Name mismatch", body: call("alpha__echo", ``), tool: "alpha__sleep"},
		{name: "version mismatch", body: call("alpha__echo", ``), tool: "alpha__echo", header: map[string]string{"Mcp-Protocol-Version": "2099-01-01"}},
		{name: "header-bound argument missing", body: call("beta__pick", `,"arguments":{"region":"eu"}`), tool: "beta__pick"},
		{name: "header-bound argument given", body: call("beta__pick", `,"arguments":{"region":"eu"}`), tool: "beta__pick",
			header: map[string]string{"Mcp-Param-Region": "eu"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := postRaw(t, "http://"+addr+Endpoint, c.body, c.tool, c.header)
			want := postRaw(t, sdk, c.body, c.tool, c.header)
			if got.kind != "application/json" && c.relayed || got.kind == "application/json" && got.status == 200 && !c.relayed {
				t.Fatalf("relayed = %v (answered as %s), want %v", !c.relayed, got.kind, c.relayed)
			}
			if got.status != want.status || got.message != want.message {
				t.Fatalf("face answered %d %s\n  go-sdk answered %d %s", got.status, got.message, want.status, want.message)
			}
		})
	}
}

// serveSDKStateless serves g's server with go-sdk's own stateless handler,
// as byRevision configures it, and returns its URL.
func serveSDKStateless(t *testing.T, g *Gateway) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, &mcp.StreamableHTTPOptions{
		Stateless: true, PropagateRequestCancellation: true, CrossOriginProtection: http.NewCrossOriginProtection(), Logger: g.quietLogger,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return "http://" + ln.Addr().String() + Endpoint
}

type rawAnswer struct {
	status  int
	kind    string
	message string // the JSON-RPC message, or the error text
}

var mintedState = regexp.MustCompile(`weft-parked:[0-9a-f]+`)

// newStatelessPost is a 2026-07-28 POST of body, a request of method,
// with the headers go-sdk's client sends with it.
func newStatelessPost(tb testing.TB, url, method, body string) *http.Request {
	tb.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", newestVersion)
	req.Header.Set("Mcp-Method", method)
	return req
}

// postRaw posts body as a 2026-07-28 tools/call of tool and returns what
// came back, with any request state weft minted masked.
func postRaw(t *testing.T, url, body, tool string, header map[string]string) rawAnswer {
	t.Helper()
	req := newStatelessPost(t, url, "tools/call", body)
	req.Header.Set("Mcp-Name", tool)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	a := rawAnswer{status: resp.StatusCode, kind: strings.Split(resp.Header.Get("Content-Type"), ";")[0]}
	if a.kind == "text/event-stream" {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				a.message = data
				break
			}
		}
	} else {
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		a.message = strings.TrimSpace(string(data))
	}
	a.message = mintedState.ReplaceAllString(a.message, "weft-parked:…")
	return a
}

// depthServer has a tool that answers with the delegation depth its
// call's _meta carries.
func depthServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "depth", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := fmt.Sprintf("depth %v", req.Params.Meta[DelegationMetaKey])
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	return s
}

// TestStatelessRelayForwardsTheDelegationDepth: a relayed call reaches
// the upstream one hop deeper than this weft, every time its client's
// _meta is met (the relay makes the forwarded _meta once per client), and
// is refused at the limit.
func TestStatelessRelayForwardsTheDelegationDepth(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + rawMeta + `,"name":"deep__depth","arguments":{}}}`
	for _, c := range []struct {
		depth int
		want  string
	}{{1, `depth 2`}, {3, `already passed through 3 wefts`}} {
		up := testutil.ServeHTTP(t, depthServer())
		g, addr, _ := serveFaceOf(t, Options{Version: "test", Delegation: DelegationOptions{Depth: c.depth, Max: 3}}, HTTPOptions{})
		if res := g.hub.Apply(context.Background(), map[string]*config.Server{"deep": {Name: "deep", Type: config.TransportHTTP, Target: up}}); len(res.Failed) > 0 {
			t.Fatalf("apply: %v", res.Failed)
		}
		for i := range 2 {
			got := postRaw(t, "http://"+addr+Endpoint, body, "deep__depth", nil)
			if got.kind != "application/json" || !strings.Contains(got.message, c.want) {
				t.Fatalf("depth %d, call %d: answered %s %s, want %q relayed", c.depth, i, got.kind, got.message, c.want)
			}
		}
	}
}
