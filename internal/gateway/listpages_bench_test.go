package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// What keeping a page costs on the walk that keeps it, against what go-sdk's
// decode of the same page costs (docs/guides/performance.md, "Fan-in: the
// client's list through weft"):
//
//	go test -run '^$' -bench 'KeptPageCapture|StatelessListWalk' -benchmem ./internal/gateway
func BenchmarkKeptPageCapture(b *testing.B) {
	var page strings.Builder
	page.WriteString(`{"tools":[`)
	for i := range 1000 {
		if i > 0 {
			page.WriteByte(',')
		}
		fmt.Fprintf(&page, `{"description":"filler tool %d: echoes its text","inputSchema":{"additionalProperties":false,"properties":{"text":{"description":"text to echo","type":"string"}},"required":["text"],"type":"object"},"name":"h0__tool_%04d"}`, i, i)
	}
	page.WriteString(`],"nextCursor":"abc"}`)
	jid, err := jsonrpc.MakeID(float64(3))
	if err != nil {
		b.Fatal(err)
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jid, Result: json.RawMessage(page.String())})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("go-sdk-decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonrpc.DecodeMessage(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("framed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := framedResult(data, jid); !ok {
				b.Fatal("not framed")
			}
		}
	})
}

// BenchmarkStatelessListWalk walks 10,008 tools (10 HTTP upstreams of
// 1,000 and the built-ins) with 2026-07-28 requests: "first" after a change
// of the face's tools (go-sdk answers and the relay keeps each page),
// "kept" from the kept pages, "go-sdk" with a _meta key the relay leaves
// to go-sdk (nothing kept). The client reads each page's tools as raw JSON.
func BenchmarkStatelessListWalk(b *testing.B) {
	h := hub.New(hub.Options{Reserved: BuiltinNames, MaxTools: 1 << 20})
	servers := map[string]*config.Server{}
	for i := range 10 {
		name := fmt.Sprintf("h%d", i)
		servers[name] = &config.Server{Name: name, Type: config.TransportHTTP, Target: testutil.ServeHTTP(b, testutil.NewEchoServer(name, 1000))}
	}
	if res := h.Apply(context.Background(), servers); len(res.Failed) > 0 {
		b.Fatalf("apply: %v", res.Failed)
	}
	g := New(h, Options{Version: "test"})
	srv := httptest.NewServer(g.Handler())
	b.Cleanup(func() {
		srv.Close()
		g.CloseSessions()
		h.Close(context.Background())
	})
	url := srv.URL + Endpoint
	for _, tc := range []struct {
		name   string
		change bool
		note   bool
	}{{"first", true, false}, {"kept", false, false}, {"go-sdk", false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if tc.change {
					g.pages.changing()
					g.pages.changed()
				}
				if n := walkStateless(b, url, tc.note); n != 10000+len(BuiltinNames) {
					b.Fatalf("listed %d tools", n)
				}
			}
		})
	}
}

// walkStateless lists every page with 2026-07-28 requests and returns the
// number of tools listed; note adds a _meta key the relay leaves to go-sdk.
func walkStateless(b *testing.B, url string, note bool) int {
	n, cursor := 0, ""
	for {
		meta := map[string]any{mcp.MetaKeyProtocolVersion: newestVersion, mcp.MetaKeyClientCapabilities: map[string]any{},
			mcp.MetaKeyClientInfo: map[string]any{"name": "lister", "version": "1"}}
		if note {
			meta["note"] = 1
		}
		params := map[string]any{"_meta": meta}
		if cursor != "" {
			params["cursor"] = cursor
		}
		p, err := json.Marshal(params)
		if err != nil {
			b.Fatal(err)
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":%s}`, p)
		resp, err := http.DefaultClient.Do(newStatelessPost(b, url, "tools/list", body))
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		if i := bytes.Index(data, []byte("data: ")); i >= 0 { // go-sdk's SSE event
			data = data[i+len("data: "):]
		}
		var page struct {
			Result struct {
				Tools      []json.RawMessage `json:"tools"`
				NextCursor string            `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &page); err != nil {
			b.Fatal(err)
		}
		n += len(page.Result.Tools)
		if cursor = page.Result.NextCursor; cursor == "" {
			return n
		}
	}
}
