package gateway

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// A client's notifications/cancelled for a relayed call must cancel the
// call weft forwarded: the upstream's handler sees its context end. The
// call's POST stays open, so only the notification can have cancelled it.
// Both upstream paths: an HTTP upstream (go-sdk's client session) and a
// stdio one (the raw connection, rawconn.go).
func TestRelayedCallIsCancelledUpstreamByTheClientsNotification(t *testing.T) {
	t.Run("http upstream", func(t *testing.T) {
		started, cancelled := make(chan struct{}), make(chan struct{})
		up := mcp.NewServer(&mcp.Implementation{Name: "waiter", Version: "1"}, nil)
		mcp.AddTool(up, &mcp.Tool{Name: "waits"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, nil, ctx.Err()
		})
		url := testutil.ServeHTTP(t, up)
		face, session := cancelFace(t, &config.Server{Name: "up", Type: config.TransportHTTP, Target: url})
		checkCancelled(t, face, session, `{}`, func(what string, ch <-chan struct{}) error {
			select {
			case <-ch:
				return nil
			case <-time.After(10 * time.Second):
				return fmt.Errorf("the upstream's handler never %s", what)
			}
		}, started, cancelled)
	})
	t.Run("stdio upstream, raw results", func(t *testing.T) {
		sock := filepath.Join(t.TempDir(), "s")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		lines := make(chan string, 2)
		go func() { // the tool's reports, one connection
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
			sc := bufio.NewScanner(conn)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		srv := shapesServer()
		srv.Name = "up"
		face, session := cancelFace(t, srv)
		started, cancelled := make(chan struct{}), make(chan struct{})
		checkCancelled(t, face, session, fmt.Sprintf(`{"socket":%q}`, sock), func(what string, want <-chan struct{}) error {
			select {
			case line := <-lines:
				if (want == started) != (line == "started") {
					return fmt.Errorf("the upstream's handler reported %q, want it %s", line, what)
				}
				return nil
			case <-time.After(10 * time.Second):
				return fmt.Errorf("the upstream's handler never %s", what)
			}
		}, started, cancelled)
	})
}

// cancelFace serves a face with the upstream srv (named "up", with a tool
// "waits") and opens a session pinned to 2025-11-25.
func cancelFace(t *testing.T, srv *config.Server) (string, string) {
	t.Helper()
	g, addr, _ := serveFace(t, HTTPOptions{})
	if res := g.hub.Apply(context.Background(), map[string]*config.Server{"up": srv}); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	url := "http://" + addr + Endpoint
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cancel-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return url, cs.ID()
}

// checkCancelled posts a relayed call of up__waits with args, awaits
// (await) its start upstream, posts the client's notifications/cancelled
// for it while the call's POST is open, and awaits the upstream handler's
// cancellation; the call's POST then returns, answered by the relay.
func checkCancelled(t *testing.T, url, session, args string, await func(what string, ch <-chan struct{}) error, started, cancelled chan struct{}) {
	t.Helper()
	answered := make(chan rawReply, 1)
	go func() {
		answered <- postCallTo(url, session, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"up__waits","arguments":`+args+`}}`)
	}()
	if err := await("started", started); err != nil {
		t.Fatal(err)
	}
	status := postNote(t, url, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"test"}}`)
	if status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled answered %d, want 202", status)
	}
	if err := await("cancelled", cancelled); err != nil {
		t.Fatal(err)
	}
	select {
	case reply := <-answered:
		if reply.kind != "application/json" {
			t.Errorf("the cancelled call was answered as %q, want the relay's application/json", reply.kind)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's POST never returned")
	}
}

// postCallTo is postCall for a goroutine: failures come back as the
// reply's kind.
func postCallTo(url, session, body string) rawReply {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(sessionPost(ctx, url, session, body))
	if err != nil {
		return rawReply{kind: "error: " + err.Error()}
	}
	defer resp.Body.Close()
	return rawReply{kind: strings.Split(resp.Header.Get("Content-Type"), ";")[0]}
}

// postNote posts a notification of the session and returns the status.
func postNote(t *testing.T, url, session, body string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(sessionPost(ctx, url, session, body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sessionPost is a POST of the session as a 2025-11-25 client sends it.
func sessionPost(ctx context.Context, url, session, body string) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(sessionHeader, session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	return req
}
