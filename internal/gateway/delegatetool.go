package gateway

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// delegateToolName is the built-in tool that hands a task to Claude Code or
// weft's own agent.
const delegateToolName = "weft__delegate"

// Delegator runs delegations for the delegate tool. The CLI supplies it over
// the delegate package, so the gateway does not depend on it.
type Delegator interface {
	// Delegate carries out the task, calling progress for every step, and
	// returns the answer as text and as a JSON-ready value.
	Delegate(ctx context.Context, in DelegateArgs, progress func(msg string)) (string, any, error)
}

// DelegateArgs are the arguments of weft__delegate.
type DelegateArgs struct {
	Task         string   `json:"task"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
	MaxTurns     int      `json:"max_turns,omitempty"`
	// Depth is the caller's in-band delegation depth (_meta).
	Depth int `json:"-"`
}

// addDelegateTool registers weft__delegate; without a Delegator it says
// delegation is unavailable, so that every face lists the same built-ins.
func (g *Gateway) addDelegateTool(d Delegator) {
	g.server.AddTool(&mcp.Tool{Name: delegateToolName,
		Description: "Hand a task to Claude Code (with weft's tools), falling back to weft's own agent; returns the answer. Streams each step as progress.",
		InputSchema: objectSchema([]string{"task"}, map[string]any{
			"task":          map[string]any{"type": "string", "description": "what to do, in plain words"},
			"allowed_tools": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Claude Code tool patterns it may use, e.g. mcp__weft__*"},
			"max_turns":     map[string]any{"type": "integer", "minimum": 3, "description": "most turns Claude Code takes"},
		})},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in DelegateArgs
			if err := decodeArgs(req.Params.Arguments, &in); err != nil {
				return errorResult(err), nil
			}
			in.Depth = metaDepth(req.Params.Meta)
			if d == nil {
				return errorResult(errors.New("delegation is not available in this weft")), nil
			}
			token := req.Params.GetProgressToken()
			steps := 0
			progress := func(msg string) {
				steps++
				if token == nil || req.Session == nil {
					return
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: float64(steps)})
			}
			text, v, err := d.Delegate(ctx, in, progress)
			return valueResult(text, v, err)
		})
}
