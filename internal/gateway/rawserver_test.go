package gateway_test

import (
	"context"
	"net"
	"os"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawServerEnv makes the test binary a stdio upstream whose tools give one
// result of each shape, for the relay's raw results (relayraw_test.go).
const rawServerEnv = "GATEWAY_TEST_RAW_SERVER"

func serveRawShapes() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shapes", Version: "1"}, nil)
	type out struct {
		Answer int    `json:"answer"`
		Note   string `json:"note"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "text"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain \"quoted\" ünïcode <tag>"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "structured"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return nil, out{Answer: 42, Note: "n"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fails"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "empty"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "meta"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Meta: mcp.Meta{"z": 1.5, "a": map[string]any{"b": "<x>"}},
			Content: []mcp.Content{&mcp.TextContent{Text: "with _meta"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "named"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Meta: mcp.Meta{mcp.MetaKeyServerInfo: map[string]any{"name": "shapes-own"}},
			Content: []mcp.Content{&mcp.TextContent{Text: "names itself"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "quotes"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `a "_meta" and "inputRequests" in text`}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "refuses"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, &jsonrpc.Error{Code: -32042, Message: "refused by the server", Data: []byte(`{"why":"test"}`)}
	})
	type waitArgs struct {
		Socket string `json:"socket"`
	}
	// waits tells the unix socket it is given that it started, then that
	// its context was cancelled (relaycancel_test.go).
	mcp.AddTool(s, &mcp.Tool{Name: "waits"}, func(ctx context.Context, _ *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, any, error) {
		conn, err := net.Dial("unix", in.Socket)
		if err != nil {
			return nil, nil, err
		}
		defer conn.Close()
		_, _ = conn.Write([]byte("started\n"))
		<-ctx.Done()
		_, _ = conn.Write([]byte("cancelled\n"))
		return nil, nil, ctx.Err()
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
