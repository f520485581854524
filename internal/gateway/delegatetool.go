package gateway

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// delegateToolName is the built-in tool that hands a task to Claude Code or
// weft's own agent.
const delegateToolName = "weft__delegate"

// Delegator runs delegations for the delegate tool. The composition root
// supplies it over the delegate package, so the gateway does not depend on
// it.
type Delegator interface {
	// Delegate carries out the task, calling progress for every step.
	Delegate(ctx context.Context, in DelegateArgs, progress func(msg string)) (DelegateResult, error)
}

// DelegateResult is a finished delegation: the answer for people, and the
// delegate package's own JSON of the run, passed on as the structured
// result.
type DelegateResult struct {
	Answer string
	Data   json.RawMessage
}

// DelegateArgs are the arguments of weft__delegate.
type DelegateArgs struct {
	Task         string   `json:"task" jsonschema:"what to do, in plain words"`
	AllowedTools []string `json:"allowed_tools,omitempty" jsonschema:"Claude Code tool patterns it may use, e.g. mcp__weft__*"`
	MaxTurns     int      `json:"max_turns,omitempty" jsonschema:"most turns Claude Code takes"`
	// Depth is the caller's in-band delegation depth (_meta).
	Depth int `json:"-"`
}

// addDelegateTool registers weft__delegate; without a Delegator it says
// delegation is unavailable, so that every face lists the same built-ins.
func (g *Gateway) addDelegateTool(d Delegator) {
	mcp.AddTool(g.server, &mcp.Tool{Name: delegateToolName,
		Description: "Hand a task to Claude Code (with weft's tools), falling back to weft's own agent; returns the answer. Streams each step as progress.",
		InputSchema: inputSchema[DelegateArgs](func(p map[string]*jsonschema.Schema) { p["max_turns"].Minimum = atLeast(3) })},
		func(ctx context.Context, req *mcp.CallToolRequest, in DelegateArgs) (*mcp.CallToolResult, any, error) {
			in.Depth = metaDepth(req.Params.Meta)
			if d == nil {
				return errorResult(errors.New("delegation is not available in this weft")), nil, nil
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
			res, err := d.Delegate(ctx, in, progress)
			return docResult(PlanDoc{Text: res.Answer, Data: res.Data}, err)
		})
}
