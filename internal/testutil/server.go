// Package testutil provides real go-sdk MCP servers for weft's tests: served
// in-process over Streamable HTTP, or as a stdio child (testdata/fakeserver).
package testutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerOptions shape a fake upstream.
type ServerOptions struct {
	Name      string // server name reported in the handshake
	ExtraTool string // name of an extra echo tool (e.g. a 200-char name)
	NumTools  int    // extra numbered tools tool_0 … tool_{N-1}
}

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

type sleepIn struct {
	MS int `json:"ms" jsonschema:"milliseconds to sleep"`
}

type textOut struct {
	Text string `json:"text"`
}

// NewServer builds a go-sdk server with tools that exercise every kind of
// server-to-client traffic: echo, sleep, progress, sample, elicit, roots, log.
func NewServer(o ServerOptions) *mcp.Server {
	if o.Name == "" {
		o.Name = "fake"
	}
	// Legacy versions only: the tools below send server-to-client requests,
	// which 2026-07-28 sessions forbid. Negotiating down also exercises
	// weft's fallback from the newest protocol's discovery.
	s := mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: "1.0.0"}, &mcp.ServerOptions{
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18"},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, textOut, error) {
		return nil, textOut{Text: o.Name + ":" + in.Text}, nil
	})
	if o.ExtraTool != "" {
		mcp.AddTool(s, &mcp.Tool{Name: o.ExtraTool, Description: "Echo under a long name"}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, textOut, error) {
			return nil, textOut{Text: "long:" + in.Text}, nil
		})
	}
	for i := range o.NumTools {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("tool_%d", i), Description: fmt.Sprintf("numbered tool %d", i)}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, textOut, error) {
			return nil, textOut{Text: fmt.Sprintf("tool_%d:%s", i, in.Text)}, nil
		})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep for ms milliseconds, or until cancelled"}, func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, textOut, error) {
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return nil, textOut{Text: "slept"}, nil
		case <-ctx.Done():
			return nil, textOut{}, ctx.Err()
		}
	})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Send three progress notifications"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, textOut, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= 3 && token != nil; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
		}
		return nil, textOut{Text: "progressed"}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Ask the client's model a question"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, textOut, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			MaxTokens: 50,
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Text}}},
		})
		if err != nil {
			return nil, textOut{}, err
		}
		return nil, textOut{Text: "sampled:" + contentText(res.Content)}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "elicit", Description: "Ask the user for a name"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, textOut, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "What is your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return nil, textOut{}, err
		}
		return nil, textOut{Text: fmt.Sprintf("elicited:%s:%v", res.Action, res.Content["name"])}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "List the client's roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, textOut, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, textOut{}, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return nil, textOut{Text: "roots:" + strings.Join(uris, ",")}, nil
	})
	s.AddResource(&mcp.Resource{URI: "fake://" + o.Name + "/readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "readme of " + o.Name}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}

func contentText(c mcp.Content) string {
	if t, ok := c.(*mcp.TextContent); ok {
		return t.Text
	}
	return fmt.Sprintf("%T", c)
}
