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
	return url, pinnedSession(t, url)
}

// checkCancelled posts a relayed call of up__waits with args, awaits
// (await) its start upstream, posts the client's notifications/cancelled
// for it while the call's POST is open, and awaits the upstream handler's
// cancellation; the call's POST then returns, answered by the relay.
func checkCancelled(t *testing.T, url, session, args string, await func(what string, ch <-chan struct{}) error, started, cancelled chan struct{}) {
	t.Helper()
	answered := make(chan string, 1) // the answer's Content-Type
	go func() {
		_, kind, _, err := postSession(url, session, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"up__waits","arguments":`+args+`}}`)
		if err != nil {
			kind = "error: " + err.Error()
		}
		answered <- kind
	}()
	if err := await("started", started); err != nil {
		t.Fatal(err)
	}
	status, _, _, err := postSession(url, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"test"}}`)
	if err != nil || status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled answered %d, %v; want 202", status, err)
	}
	if err := await("cancelled", cancelled); err != nil {
		t.Fatal(err)
	}
	select {
	case kind := <-answered:
		if kind != "application/json" {
			t.Errorf("the cancelled call was answered as %q, want the relay's application/json", kind)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's POST never returned")
	}
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
