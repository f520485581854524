//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkToolsList10kRaw lists 10,000 tools through weft's face with a
// raw HTTP client that only reads each page's size and nextCursor, so that
// the figure is the server's (a go-sdk client re-checks every schema).
func BenchmarkToolsList10kRaw(b *testing.B) {
	rc := newRawClient(b, gatewayURL(b, upstreams10k(b)))
	b.ResetTimer()
	for b.Loop() {
		if n := rc.listAll(b); n < 10000 {
			b.Fatalf("listed %d tools", n)
		}
	}
}

// rawClient speaks just enough Streamable HTTP (2025-11-25, a stateful
// session) to page through tools/list.
type rawClient struct {
	url, session string
	id           int
}

func newRawClient(b *testing.B, url string) *rawClient {
	rc := &rawClient{url: url}
	rc.post(b, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	rc.post(b, "notifications/initialized", "")
	return rc
}

func (rc *rawClient) listAll(b *testing.B) int {
	n, cursor := 0, ""
	for {
		params := "{}"
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		var page struct {
			Result struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rc.post(b, "tools/list", params), &page); err != nil {
			b.Fatal(err)
		}
		n += len(page.Result.Tools)
		if cursor = page.Result.NextCursor; cursor == "" {
			return n
		}
	}
}

// post sends one request (a notification when params is "") and returns
// the JSON of its response, read from an SSE stream or a JSON body.
func (rc *rawClient) post(b *testing.B, method, params string) []byte {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q`, method)
	if params != "" {
		rc.id++
		body += fmt.Sprintf(`,"id":%d,"params":%s`, rc.id, params)
	}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, rc.url, strings.NewReader(body+"}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if rc.session != "" {
		req.Header.Set("Mcp-Session-Id", rc.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		rc.session = id
	}
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("%s: %s: %s", method, resp.Status, msg)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		out, _ := io.ReadAll(resp.Body)
		return out
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && bytes.Contains(data, []byte(`"id"`)) {
			return bytes.Clone(data)
		}
	}
	return nil
}
