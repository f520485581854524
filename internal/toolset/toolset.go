// Package toolset is the narrow view of weft's catalog that plans and the
// agent work through. It knows nothing of the hub: the CLI hands them an
// implementation (the hub adapter in production, a fake in tests).
package toolset

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool describes one callable tool as a fresh snapshot sees it.
type Tool struct {
	Name        string          // exposed, namespaced name
	Server      string          // upstream server name ("weft" for built-ins)
	Description string          // the tool's description
	InputSchema json.RawMessage // JSON Schema of the arguments
}

// ServerInfo is what the agent tells the LLM about one upstream.
type ServerInfo struct {
	Name    string
	Status  string // active, connecting, disconnected, draining, disabled, …
	Breaker string // closed, open, half-open ("" when unknown)
}

// Caller reaches tools. Implementations must be safe for concurrent use.
type Caller interface {
	// Tools returns a snapshot of the whole catalog (listed or not).
	Tools() []Tool
	// CallTool calls the tool by its exposed name. A tool-level failure is a
	// result with IsError set; err is for failures to reach the tool.
	CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error)
}

// Describer is optionally implemented by a Caller that can also report server
// availability, resources and prompts (used for the agent's system context).
type Describer interface {
	Servers() []ServerInfo
	ResourceNames() []string
	PromptNames() []string
}

// ErrUnknownTool reports a tool name the catalog does not hold.
var ErrUnknownTool = errors.New("unknown tool")

// Find returns the tool with the given name from a snapshot.
func Find(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
