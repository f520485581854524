//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// What go-sdk v1.8.0's Streamable HTTP client costs per call, apart from
// any server: BenchmarkSDKStreamableClient calls a canned endpoint that
// answers each tools/call with a fixed event stream (no go-sdk server, so
// the process's CPU is the client's and net/http's), once through
// ClientSession.CallTool and once as a plain POST that reads the same
// stream and decodes the envelope with encoding/json. The difference is
// the SDK client's own work per call: the request's _meta read again
// through a fresh 32 KiB decoder to pick its protocol-version header
// (setMCPHeaders → extractRequestMeta), a goroutine per response stream,
// the message decoded through another fresh decoder (DecodeMessage), the
// result through two more (Await, CallToolResult.UnmarshalJSON). weft's
// gateway pays this for every call it relays to an HTTP upstream
// (docs/guides/performance.md, "HTTP upstreams").
//
//	go test -run '^$' -bench SDKStreamableClient -benchmem ./bench

// cannedSSE is an endpoint that speaks just enough Streamable HTTP for a
// pinned go-sdk client: initialize, notifications, tools/call.
func cannedSSE(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed) // no standalone stream
		return
	}
	body, _ := io.ReadAll(r.Body)
	var msg wireMessage
	if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	if msg.Method == "initialize" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "canned")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}}`, msg.ID)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", msg.ID, callResult)
}

func BenchmarkSDKStreamableClient(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(cannedSSE))
	b.Cleanup(srv.Close)
	b.Run("go-sdk-client", func(b *testing.B) {
		cs, err := connectHTTPAs(context.Background(), srv.URL, clientPinned)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		benchCPU(b, echoCaller(cs, "echo"))
	})
	b.Run("net-http-plain", func(b *testing.B) {
		client := &http.Client{Transport: httpTransport}
		benchCPU(b, func(ctx context.Context) error { return plainCall(ctx, client, srv.URL) })
	})
}

// plainCall is one tools/call as a POST with the session's headers, its
// event stream read whole and the response's envelope decoded.
func plainCall(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(callRequest))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "canned")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	data, ok := bytes.CutPrefix(body, []byte("event: message\ndata: "))
	var msg wireMessage
	if !ok || json.Unmarshal(bytes.TrimSpace(data), &msg) != nil || len(msg.Result) == 0 {
		return fmt.Errorf("unexpected stream %q", body)
	}
	return nil
}

// benchCPU runs call b.N times and reports the process's CPU per call.
func benchCPU(b *testing.B, call caller) {
	b.ReportAllocs()
	cpu0, err := cpuTime(0)
	for b.Loop() {
		if err := call(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0, err)
}
