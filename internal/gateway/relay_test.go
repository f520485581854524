package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// kinds records the Content-Type of each answered request of a session
// (a notification or a response to the server gets 202), to tell a relayed call (application/json) from one go-sdk
// answered (text/event-stream).
type kinds struct {
	mu  sync.Mutex
	got []string
}

func (k *kinds) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost && r.Header.Get(sessionHeader) != "" && resp.StatusCode == http.StatusOK {
		k.mu.Lock()
		k.got = append(k.got, strings.Split(resp.Header.Get("Content-Type"), ";")[0])
		k.mu.Unlock()
	}
	return resp, err
}

func (k *kinds) last() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.got) == 0 {
		return ""
	}
	return k.got[len(k.got)-1]
}

// relayFace serves a face with one HTTP upstream "alpha" and connects a
// go-sdk client pinned to 2025-11-25 (a stateful session) with opts.
func relayFace(t *testing.T, opts *mcp.ClientOptions) (*mcp.ClientSession, *kinds) {
	t.Helper()
	return relayFaceWith(t, mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "1"}, opts))
}

// relayFaceWith is relayFace with the client c.
func relayFaceWith(t *testing.T, c *mcp.Client) (*mcp.ClientSession, *kinds) {
	t.Helper()
	up := testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "alpha"})) // closed after the face
	g, addr, _ := serveFace(t, HTTPOptions{})
	if res := g.hub.Apply(context.Background(), map[string]*config.Server{
		"alpha": {Name: "alpha", Type: config.TransportHTTP, Target: up},
	}); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	k := &kinds{}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Endpoint, HTTPClient: &http.Client{Transport: k}}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, k
}

func TestRelayAnswersAPlainCallWithJSON(t *testing.T) {
	cs, k := relayFace(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i := range 3 { // the first call of a session may go to go-sdk
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "alpha:hi") {
			t.Fatalf("call %d answered %q", i, got)
		}
	}
	if got := k.last(); got != "application/json" {
		t.Fatalf("a plain call was answered as %q, want application/json (relayed)", got)
	}
	// An unknown tool is go-sdk's to answer, as before.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__nope"}); err == nil {
		t.Fatal("unknown tool: no error")
	}
}

func TestRelayLeavesProgressAndSamplingToTheStream(t *testing.T) {
	progress := make(chan float64, 10)
	cs, k := relayFace(t, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Progress
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "42"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: "alpha__progress"}
	p.SetProgressToken("tok")
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := k.last(); got != "text/event-stream" {
		t.Fatalf("a call with a progress token was answered as %q, want the SSE stream", got)
	}
	for i := range 3 { // the client's handler runs apart from the call's return
		select {
		case <-progress:
		case <-ctx.Done():
			t.Fatalf("got %d progress notifications, want 3", i)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__sample", Arguments: map[string]any{"text": "q"}})
	if err != nil || res.IsError {
		t.Fatalf("sample: %v %+v", err, res)
	}
	if got := k.last(); got != "text/event-stream" {
		t.Fatalf("a sampling client's call was answered as %q, want the SSE stream", got)
	}
}

func TestRelayedCallIsCancelled(t *testing.T) {
	cs, k := relayFace(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "warm"}}); err != nil {
		t.Fatal(err)
	}
	callCtx, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	start := time.Now()
	_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "alpha__sleep", Arguments: map[string]any{"ms": 60000}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled call: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cancelled call took %v", d)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "after"}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "alpha:after") {
		t.Fatalf("call after a cancellation: %v %+v", err, res)
	}
	if got := k.last(); got != "application/json" {
		t.Fatalf("answered as %q, want application/json", got)
	}
}

func TestRelayedCallGetsRootsOverTheStandaloneStream(t *testing.T) {
	c := mcp.NewClient(&mcp.Implementation{Name: "roots", Version: "1"}, nil) // declares roots, like every go-sdk client
	c.AddRoots(&mcp.Root{URI: "file:///tmp/relay-root", Name: "r"})
	cs, k := relayFaceWith(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__roots"})
	if err != nil || res.IsError {
		t.Fatalf("roots: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "file:///tmp/relay-root") {
		t.Fatalf("roots answered %q", got)
	}
	if got := k.last(); got != "application/json" {
		t.Fatalf("answered as %q, want application/json (relayed)", got)
	}
}
