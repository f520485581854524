//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// A minimal reproduction, without weft, of what go-sdk v1.8.0's client
// costs to list many tools: the part of the fan-in row ("start → all
// listed ÷ direct, 10 http × 1000 tools") that is left once weft has every
// tool (docs/guides/performance.md, "Fan-in: the client's list through
// weft"). Plain go-sdk servers serve the tools over Streamable HTTP, in
// this process; each tool's input schema is raw JSON, as on weft's face,
// so that the server's part of each list is small and the same for every
// client:
//
//   - one-server-10k/*: one server of 10,000 tools (10 pages of go-sdk's
//     default 1,000), as weft's face lists its catalog to one client. The
//     go-sdk client, default (2026-07-28, stateless) or pinned to
//     2025-11-25, against the raw client of rawlist_test.go (2025-11-25,
//     each page's tools read as json.RawMessage): the same server and
//     pages, so the difference is the go-sdk client's own decoding
//     (typed Tools, then filterValidTools re-encoding and decoding every
//     input schema through a fresh 32 KiB buffer).
//
//   - ten-servers-1k/go-sdk-default: ten servers of 1,000 tools, each
//     listed by its own go-sdk client at once, as the fan-in row's direct
//     path does: the same 10,000 tools, decoded on both cores.
//
//     go test -run '^$' -bench SDKListTools -benchmem ./bench
func BenchmarkSDKListTools(b *testing.B) {
	one := testutil.ServeHTTP(b, rawSchemaServer(10000))
	b.Run("one-server-10k/go-sdk-default", func(b *testing.B) { benchSDKList(b, []string{one}, "") })
	b.Run("one-server-10k/go-sdk-2025-11-25", func(b *testing.B) { benchSDKList(b, []string{one}, clientPinned) })
	b.Run("one-server-10k/raw-2025-11-25", func(b *testing.B) {
		rc := newRawClient(b, one)
		for b.Loop() {
			if n := listAllRaw(b, rc); n != 10000 {
				b.Fatalf("listed %d tools", n)
			}
		}
	})
	ten := make([]string, 10)
	for i := range ten {
		ten[i] = testutil.ServeHTTP(b, rawSchemaServer(1000))
	}
	b.Run("ten-servers-1k/go-sdk-default", func(b *testing.B) { benchSDKList(b, ten, "") })
}

// rawSchemaServer is a go-sdk server of n tools whose input schemas are
// raw JSON: the echo tool's schema as the benchserver lists it.
func rawSchemaServer(n int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "list", Version: "1.0.0"}, nil)
	schema := json.RawMessage(`{"additionalProperties":false,"properties":{"text":{"description":"text to echo","type":"string"}},"required":["text"],"type":"object"}`)
	never := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	for i := range n {
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%05d", i), Description: fmt.Sprintf("filler tool %d: echoes its text", i), InputSchema: schema}, never)
	}
	return s
}

// benchSDKList lists every tool of urls once per op, one go-sdk client
// session (revision rev) per server, all at once.
func benchSDKList(b *testing.B, urls []string, rev string) {
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, len(urls))
	for i, u := range urls {
		cs, err := connectHTTPAs(ctx, u, rev)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		sessions[i] = cs
	}
	b.ReportAllocs()
	for b.Loop() {
		counts := make([]int, len(sessions))
		errs := make([]error, len(sessions))
		var wg sync.WaitGroup
		for i, cs := range sessions {
			wg.Go(func() { counts[i], errs[i] = listTools(ctx, cs) })
		}
		wg.Wait()
		total := 0
		for i, n := range counts {
			if errs[i] != nil {
				b.Fatal(errs[i])
			}
			total += n
		}
		if total != 10000 {
			b.Fatalf("listed %d tools", total)
		}
	}
}
