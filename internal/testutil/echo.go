package testutil

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewEchoServer builds the upstream of weft's benchmarks: a go-sdk server
// with an `echo` tool and numbered filler tools, tools in all (at least
// one). Unlike NewServer it negotiates every protocol version the SDK
// supports, so a client takes the same handshake path directly or through
// weft.
func NewEchoServer(name string, tools int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	echo := func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"}, echo)
	for i := 1; i < tools; i++ {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: fmt.Sprintf("filler tool %d: echoes its text", i)}, echo)
	}
	return s
}
