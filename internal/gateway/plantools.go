package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the built-in plan tools.
const (
	planListName = "weft__plan_list"
	planShowName = "weft__plan_show"
	planDryName  = "weft__plan_dry_run"
	planRunName  = "weft__plan_run"
)

// Plans is what the plan tools need. The CLI supplies it over the plan
// package, so the gateway does not depend on plans.
type Plans interface {
	// List returns the saved plans as a JSON-ready value.
	List(ctx context.Context) (any, error)
	// Show returns the plan drawn as text and as a JSON-ready value.
	Show(ctx context.Context, id string) (string, any, error)
	// DryRun returns what a run would call, as text and value; it calls
	// nothing.
	DryRun(ctx context.Context, id string, vars map[string]any) (string, any, error)
	// Run runs the plan, calling progress for every step event with the
	// steps finished so far, and returns the final state.
	Run(ctx context.Context, id string, opts PlanRunOptions, progress func(msg string, finished, total int)) (any, error)
}

// PlanRunOptions are the arguments of weft__plan_run.
type PlanRunOptions struct {
	Vars        map[string]any `json:"vars,omitempty"`
	MaxParallel int            `json:"max_parallel,omitempty"`
	Resume      bool           `json:"resume,omitempty"`
	MaxCalls    int            `json:"max_calls,omitempty"`
}

var planIDSchema = map[string]any{"type": "string", "description": "plan id (weft__plan_list shows them)"}
var varsSchema = map[string]any{"type": "object", "description": "plan variables to set, by name"}

// addPlanTools registers the plan tools. They are always there, so that
// BuiltinNames is what every face lists; without plans they say so.
func (g *Gateway) addPlanTools(p Plans) {
	if p == nil {
		p = noPlans{}
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	g.server.AddTool(&mcp.Tool{Name: planListName, Description: "List the saved weft plans (DAGs of tool calls) with their last run's status.",
		InputSchema: map[string]any{"type": "object"}, Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, err := p.List(ctx)
			return valueResult("", v, err)
		})
	g.server.AddTool(&mcp.Tool{Name: planShowName, Description: "Show a saved plan: its steps, tools, dependencies and variables.",
		InputSchema: objectSchema([]string{"id"}, map[string]any{"id": planIDSchema}), Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ ID string }
			if err := decodeArgs(req.Params.Arguments, &in); err != nil {
				return errorResult(err), nil
			}
			text, v, err := p.Show(ctx, in.ID)
			return valueResult(text, v, err)
		})
	g.server.AddTool(&mcp.Tool{Name: planDryName, Description: "Dry-run a saved plan: each step's tool and resolved arguments, and how many calls a run makes. Calls no tool.",
		InputSchema: objectSchema([]string{"id"}, map[string]any{"id": planIDSchema, "vars": varsSchema}), Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				ID   string
				Vars map[string]any
			}
			if err := decodeArgs(req.Params.Arguments, &in); err != nil {
				return errorResult(err), nil
			}
			text, v, err := p.DryRun(ctx, in.ID, in.Vars)
			return valueResult(text, v, err)
		})
	g.addPlanRun(p)
}

func (g *Gateway) addPlanRun(p Plans) {
	g.server.AddTool(&mcp.Tool{Name: planRunName,
		Description: "Run a saved plan, with a checkpoint after every step and progress notifications; resume: true goes on with its last run.",
		InputSchema: objectSchema([]string{"id"}, map[string]any{
			"id": planIDSchema, "vars": varsSchema,
			"max_parallel": map[string]any{"type": "integer", "minimum": 1, "description": "most steps running at once"},
			"resume":       map[string]any{"type": "boolean", "description": "go on with the last run instead of starting afresh"},
			"max_calls":    map[string]any{"type": "integer", "minimum": 0, "description": "stop after this many tool calls (0: no limit)"},
		})},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				ID string `json:"id"`
				PlanRunOptions
			}
			if err := decodeArgs(req.Params.Arguments, &in); err != nil {
				return errorResult(err), nil
			}
			token := req.Params.GetProgressToken()
			progress := func(msg string, finished, total int) {
				if token == nil || req.Session == nil {
					return
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Message: msg, Progress: float64(finished), Total: float64(total)})
			}
			v, err := p.Run(ctx, in.ID, in.PlanRunOptions, progress)
			return valueResult("", v, err)
		})
}

func objectSchema(required []string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "required": required, "properties": props}
}

// valueResult answers with v as structured content (and text when given);
// an error becomes a tool error the model can read. A run that failed
// still returns its state along with the error.
func valueResult(text string, v any, err error) (*mcp.CallToolResult, error) {
	if err != nil && v == nil {
		return errorResult(err), nil
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		return errorResult(fmt.Errorf("encode result: %w", merr)), nil
	}
	if text == "" {
		text = string(b)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
	if err != nil {
		res.IsError = true
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: err.Error()}}, res.Content...)
	}
	return res, nil
}

// noPlans answers the plan tools of a face that was given no plan store.
type noPlans struct{}

var errNoPlans = errors.New("plans are not available in this weft: it found no plans directory (set WEFT_PLANS_DIR)")

// List and the others answer that there are no plans.
func (noPlans) List(context.Context) (any, error) { return nil, errNoPlans }
func (noPlans) Show(context.Context, string) (string, any, error) {
	return "", nil, errNoPlans
}
func (noPlans) DryRun(context.Context, string, map[string]any) (string, any, error) {
	return "", nil, errNoPlans
}
func (noPlans) Run(context.Context, string, PlanRunOptions, func(string, int, int)) (any, error) {
	return nil, errNoPlans
}
