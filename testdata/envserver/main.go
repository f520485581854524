// Command envserver is a stdio MCP server for weft's per-user tests: its
// one tool reports an environment variable it was started with, and its
// process id, so a test can tell which instance answered. With
// ENVSERVER_PRINT=NAME it prints that variable to stderr at start.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type getenvIn struct {
	Name string `json:"name" jsonschema:"the variable to report"`
}

func main() {
	if name := os.Getenv("ENVSERVER_PRINT"); name != "" {
		// As a careless server would: the variable's value on stderr.
		fmt.Fprintf(os.Stderr, "%s=%s\n", name, os.Getenv(name))
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "envserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "getenv", Description: "Report an environment variable and the process id"},
		func(_ context.Context, _ *mcp.CallToolRequest, in getenvIn) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("%s=%s pid=%d", in.Name, os.Getenv(in.Name), os.Getpid())
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
