package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// wireOf renders what a client gets for a tools/call that failed with err.
func wireOf(err error) string {
	res, rpcErr := toolError(err)
	if rpcErr != nil {
		b, _ := json.Marshal(rpcErr)
		return "error " + string(b)
	}
	return "result isError=" + boolText(res.IsError) + " " + res.Content[0].(*mcp.TextContent).Text
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestErrorToWireTable drives a real hub into every state a call can meet
// and checks the exact message the client reads: each piece of context
// (server, limit, reason) once, and the right form (tool result or
// JSON-RPC error).
func TestErrorToWireTable(t *testing.T) {
	ctx := context.Background()
	url := testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "up"}))
	h := hub.New(hub.Options{Reserved: BuiltinNames, DrainTimeout: time.Minute})
	t.Cleanup(func() { h.Close(context.Background()) }) // before the upstream's own cleanup, which waits for streams
	srv := func(name string, edit func(*config.Server)) {
		cfg := &config.Server{Name: name, Type: config.TransportHTTP, Target: url, TimeoutMS: 10_000}
		if edit != nil {
			edit(cfg)
		}
		if _, err := h.Add(ctx, cfg); err != nil {
			t.Fatalf("add %s: %v", name, err)
		}
	}
	call := func(ctx context.Context, name string, args string) error {
		_, err := h.CallTool(ctx, nil, name, json.RawMessage(args), nil)
		return err
	}
	srv("slow", func(c *config.Server) {
		c.TimeoutMS, c.FailureThreshold, c.ResetTimeout = 1000, 1, config.Duration(time.Hour)
	})
	srv("busy", func(c *config.Server) { c.MaxConcurrentCalls = 1 })
	srv("drain", nil)

	timeoutErr := call(ctx, "slow__sleep", `{"ms":2500}`) // outlives timeout_ms; short, so that the upstream can close
	breakerErr := call(ctx, "slow__sleep", `{"ms":0}`)    // timeouts open the tool's own breaker
	limitErr := holdingSlot(t, h, "busy", func() error {
		short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		return call(short, "busy__echo", `{"text":"x"}`)
	})
	drainErr := whileDraining(t, h, "drain", func() error { return call(ctx, "drain__echo", `{"text":"x"}`) })

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	if _, err := h.Add(ctx, &config.Server{Name: "dead", Type: config.TransportHTTP, Target: dead.URL, TimeoutMS: 2000}); err == nil {
		t.Fatal("add of a closed server succeeded")
	}
	disconnectedErr := h.Unavailable("dead__echo")
	connectingErr := whileConnecting(t, h, "late")

	cases := []struct {
		name string
		err  error
		want string // regexp of the whole wire form
	}{
		{"unknown", call(ctx, "nope__echo", `{}`),
			`^error {"code":-32602,"message":"unknown tool \\"nope__echo\\": not in the catalog \(list tools or use weft__search_tools\)"}$`},
		{"unknown under a disconnected server", unavailableTool("dead__echo", disconnectedErr),
			`^error {"code":-32602,"message":"unknown tool \\"dead__echo\\": dead: server disconnected \(connect dead: .*\)"}$`},
		{"draining", drainErr, `^result isError=true weft: drain: server draining$`},
		{"disconnected", disconnectedErr, `^result isError=true weft: dead: server disconnected \(connect dead: [^)]*\)$`},
		{"still connecting", connectingErr, `^result isError=true weft: late: server still connecting; retry in a moment$`},
		{"timeout", timeoutErr,
			`^result isError=true weft: slow: no answer within the server's timeout_ms \(1s\); raise it if the tool is slow$`},
		{"breaker open", breakerErr,
			`^result isError=true weft: slow: tool sleep timed out; circuit open after 1 consecutive failures; next probe in 3600s$`},
		{"limit", limitErr,
			`^result isError=true weft: busy: waited for a free call slot \(max_concurrent_calls\) until the timeout; raise the limit or retry later$`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil {
				t.Fatal("no error")
			}
			if got := wireOf(tc.err); !regexp.MustCompile(tc.want).MatchString(got) {
				t.Fatalf("wire form:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// holdingSlot runs try while another call holds the server's only slot.
func holdingSlot(t *testing.T, h *hub.Hub, server string, try func() error) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = h.CallTool(ctx, nil, server+"__sleep", json.RawMessage(`{"ms":60000}`), nil)
	}()
	defer func() { cancel(); <-done }()
	awaitTrue(t, "a call in flight on "+server, func() bool { st, _ := h.Get(server); return st.InFlight == 1 })
	return try()
}

// whileDraining runs try after server was removed with a call in flight.
func whileDraining(t *testing.T, h *hub.Hub, server string, try func() error) error {
	t.Helper()
	var err error
	holdingSlot(t, h, server, func() error {
		removed := make(chan struct{})
		go func() { defer close(removed); _ = h.Remove(context.Background(), server) }()
		awaitTrue(t, server+" draining", func() bool {
			for _, st := range h.List() {
				if st.Name == server {
					return st.Status == hub.StatusDraining
				}
			}
			return false
		})
		_, err = h.CallTool(context.Background(), nil, server+"__echo", json.RawMessage(`{"text":"x"}`), nil)
		t.Cleanup(func() { <-removed })
		return nil
	})
	return err
}

// whileConnecting returns the error of a call to a server whose handshake
// has not finished.
func whileConnecting(t *testing.T, h *hub.Hub, server string) error {
	t.Helper()
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-release
		http.Error(w, "gone", http.StatusServiceUnavailable)
	}))
	added := make(chan struct{})
	go func() {
		defer close(added)
		_, _ = h.Add(context.Background(), &config.Server{Name: server, Type: config.TransportHTTP, Target: stall.URL, TimeoutMS: 30_000})
	}()
	<-arrived
	err := h.Unavailable(server + "__echo")
	close(release)
	<-added
	stall.Close()
	return err
}

func awaitTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRequestErrorCodes checks the JSON-RPC codes of the requests that
// have no error result: prompts, resources and completion.
func TestRequestErrorCodes(t *testing.T) {
	upstreamErr := &jsonrpc.Error{Code: -32001, Message: "upstream says no"}
	cases := []struct {
		err      error
		wantCode int64
		wantMsg  string
	}{
		{errors.Join(hub.ErrUnknownPrompt), jsonrpc.CodeInvalidParams, "unknown prompt"},
		{hub.ErrUnknownURI, mcp.CodeResourceNotFound, "unknown resource"},
		{hub.ErrBadReference, jsonrpc.CodeInvalidParams, hub.ErrBadReference.Error()},
		{&hub.ServerError{Server: "a", Err: hub.ErrDraining}, jsonrpc.CodeInternalError, "a: server draining"},
		{&hub.ServerError{Server: "a", Err: upstreamErr}, -32001, "upstream says no"},
	}
	for _, tc := range cases {
		var wire *jsonrpc.Error
		if !errors.As(requestError(tc.err), &wire) || wire.Code != tc.wantCode || wire.Message != tc.wantMsg {
			t.Errorf("requestError(%v) = %+v, want code %d message %q", tc.err, wire, tc.wantCode, tc.wantMsg)
		}
	}
}
