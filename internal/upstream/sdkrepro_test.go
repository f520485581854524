package upstream

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKKeepAliveSkipsDiscoverSessions is the minimal reproduction behind
// needsOwnKeepAlive (keepalive.go): go-sdk v1.8.0's Client.Connect starts
// ClientOptions.KeepAlive only at the end of the legacy initialize handshake,
// so a session opened by server/discover (2026-07-28) is never pinged. When
// this test fails, the SDK pings such sessions itself: delete weft's own
// keepalive loop and this test.
func TestSDKKeepAliveSkipsDiscoverSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	modern := connectCountingPings(t, ctx, "")
	legacy := connectCountingPings(t, ctx, "2025-11-25")
	// The modern session connected first, so it has had at least as long as
	// the legacy one to be pinged.
	for legacy.Load() < 3 {
		select {
		case <-ctx.Done():
			t.Fatalf("the legacy session got %d pings, want 3: the reproduction itself is broken", legacy.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if n := modern.Load(); n != 0 {
		t.Fatalf("the 2026-07-28 session got %d keepalive pings: go-sdk now pings discover sessions, so weft's own keepalive (needsOwnKeepAlive) can go", n)
	}
}

// connectCountingPings connects a client with a 10 ms KeepAlive to a fresh
// in-memory server pinned to version ("" for the client's default, which
// opens with server/discover) and returns the server's count of pings.
func connectCountingPings(t *testing.T, ctx context.Context, version string) *atomic.Int64 {
	t.Helper()
	var pings atomic.Int64
	server := mcp.NewServer(&mcp.Implementation{Name: "pinged"}, nil)
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "ping" {
				pings.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// go-sdk closes a session whose ping misses interval/2; on a loaded CI
	// machine under -race that happened after two pings and broke the count,
	// so failures are tolerated: the test counts pings, not their speed.
	client := mcp.NewClient(&mcp.Implementation{Name: "pinger"}, &mcp.ClientOptions{
		KeepAlive:                 10 * time.Millisecond,
		KeepAliveFailureThreshold: math.MaxInt32,
		Logger:                    slog.New(slog.DiscardHandler),
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	want := version
	if want == "" {
		want = "2026-07-28" // what server/discover opens
	}
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("negotiated %s, want %s", got, want)
	}
	return &pings
}

// TestSDKResultOvertakesItsNotifications is the minimal reproduction behind
// noteOrder (ordering.go): go-sdk v1.8.0 hands a call's result to the caller
// as soon as it is read, while a progress notification the server sent
// before that result may still be waiting for its handler. Here the handler
// is held, and the call returns anyway. When this test fails, the SDK
// delivers a result only after the notifications that preceded it: delete
// noteOrder and this test.
func TestSDKResultOvertakesItsNotifications(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	server := mcp.NewServer(&mcp.Implementation{Name: "progress"}, nil)
	server.AddTool(&mcp.Tool{Name: "work", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1})
			return &mcp.CallToolResult{}, err
		})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	handling, release := make(chan struct{}), make(chan struct{})
	client := mcp.NewClient(&mcp.Implementation{Name: "caller"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			close(handling)
			<-release // a relay still busy with the notification
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	defer close(release)
	params := &mcp.CallToolParams{Name: "work"}
	params.SetProgressToken("p1")
	callCtx, callCancel := context.WithTimeout(ctx, 3*time.Second)
	defer callCancel()
	if _, err := cs.CallTool(callCtx, params); err != nil {
		t.Fatalf("the call did not return while its progress notification was still being handled (%v): go-sdk now orders results after their notifications, so weft's noteOrder can go", err)
	}
	select {
	case <-handling:
	case <-ctx.Done():
		t.Fatal("the progress notification never reached its handler")
	}
}
