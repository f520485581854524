//go:build linux

package main

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// BenchmarkCallThroughGatewayStdioNoCaps is BenchmarkCallThroughGatewayStdio
// with a 2026-07-28 client that declares no capability (go-sdk's default
// client declares roots): weft cannot ask it for input, so its calls are
// not parked on a goroutine of their own.
func BenchmarkCallThroughGatewayStdioNoCaps(b *testing.B) {
	bin := testutil.GoBinary(b, "github.com/weft-dev/weft/testdata/benchserver", "benchserver")
	url := gatewayOf(b, map[string]*config.Server{"bench": {Name: "bench", Type: config.TransportStdio, Target: bin}})
	c := mcp.NewClient(&mcp.Implementation{Name: "weft-bench", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: httpTransport}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	benchCalls(b, echoCaller(cs, "bench__echo"))
}
