package gateway

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the built-in plan tools.
const (
	planListName = "weft__plan_list"
	planShowName = "weft__plan_show"
	planDryName  = "weft__plan_dry_run"
	planRunName  = "weft__plan_run"
)

// Plans is what the plan tools need. The composition root supplies it over
// the plan package, so the gateway does not depend on plans.
type Plans interface {
	// List returns the saved plans.
	List(ctx context.Context) (PlanList, error)
	// Show returns the plan drawn as text and as JSON.
	Show(ctx context.Context, id string) (PlanDoc, error)
	// DryRun returns what a run would call, as text and JSON; it calls
	// nothing.
	DryRun(ctx context.Context, id string, vars map[string]any) (PlanDoc, error)
	// Run runs the plan, calling progress for every step event with the
	// steps finished so far, and returns the final state (as JSON). A run
	// that failed returns its state along with the error.
	Run(ctx context.Context, id string, opts PlanRunOptions, progress func(msg string, finished, total int)) (PlanDoc, error)
}

// PlanList is weft__plan_list's result.
type PlanList struct {
	Plans []PlanSummary `json:"plans"`
}

// PlanSummary is one saved plan in a PlanList.
type PlanSummary struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Steps   int    `json:"steps"`
	LastRun string `json:"last_run"`
}

// PlanDoc is a plan tool's answer: Text for people (empty: Data is shown),
// Data the plan package's own JSON, which the face passes on as the
// structured result without importing that package.
type PlanDoc struct {
	Text string
	Data json.RawMessage
}

// PlanRunOptions are the arguments of weft__plan_run.
type PlanRunOptions struct {
	Vars        map[string]any `json:"vars,omitempty"`
	MaxParallel int            `json:"max_parallel,omitempty"`
	Resume      bool           `json:"resume,omitempty"`
	MaxCalls    int            `json:"max_calls,omitempty"`
}

// Inputs of the plan tools.
type (
	planListIn struct{}
	planShowIn struct {
		ID string `json:"id" jsonschema:"plan id (weft__plan_list shows them)"`
	}
	planDryIn struct {
		ID   string         `json:"id" jsonschema:"plan id (weft__plan_list shows them)"`
		Vars map[string]any `json:"vars,omitempty" jsonschema:"plan variables to set, by name"`
	}
	planRunIn struct {
		ID          string         `json:"id" jsonschema:"plan id (weft__plan_list shows them)"`
		Vars        map[string]any `json:"vars,omitempty" jsonschema:"plan variables to set, by name"`
		MaxParallel int            `json:"max_parallel,omitempty" jsonschema:"most steps running at once"`
		Resume      bool           `json:"resume,omitempty" jsonschema:"go on with the last run instead of starting afresh"`
		MaxCalls    int            `json:"max_calls,omitempty" jsonschema:"stop after this many tool calls (0: no limit)"`
	}
)

// addPlanTools registers the plan tools. They are always there, so that
// BuiltinNames is what every face lists; without plans they say so.
func (g *Gateway) addPlanTools(p Plans) {
	if p == nil {
		p = noPlans{}
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	mcp.AddTool(g.server, &mcp.Tool{Name: planListName, Description: "List the saved weft plans (DAGs of tool calls) with their last run's status.",
		InputSchema: inputSchema[planListIn](nil), Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ planListIn) (*mcp.CallToolResult, PlanList, error) {
			list, err := p.List(ctx)
			if list.Plans == nil {
				list.Plans = []PlanSummary{}
			}
			return nil, list, err
		})
	mcp.AddTool(g.server, &mcp.Tool{Name: planShowName, Description: "Show a saved plan: its steps, tools, dependencies and variables.",
		InputSchema: inputSchema[planShowIn](nil), Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest, in planShowIn) (*mcp.CallToolResult, any, error) {
			return docResult(p.Show(ctx, in.ID))
		})
	mcp.AddTool(g.server, &mcp.Tool{Name: planDryName, Description: "Dry-run a saved plan: each step's tool and resolved arguments, and how many calls a run makes. Calls no tool.",
		InputSchema: inputSchema[planDryIn](nil), Annotations: ro},
		func(ctx context.Context, _ *mcp.CallToolRequest, in planDryIn) (*mcp.CallToolResult, any, error) {
			return docResult(p.DryRun(ctx, in.ID, in.Vars))
		})
	g.addPlanRun(p)
}

func (g *Gateway) addPlanRun(p Plans) {
	mcp.AddTool(g.server, &mcp.Tool{Name: planRunName,
		Description: "Run a saved plan, with a checkpoint after every step and progress notifications; resume: true goes on with its last run.",
		InputSchema: inputSchema[planRunIn](func(props map[string]*jsonschema.Schema) {
			props["max_parallel"].Minimum = atLeast(1)
			props["max_calls"].Minimum = atLeast(0)
		})},
		func(ctx context.Context, req *mcp.CallToolRequest, in planRunIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			progress := func(msg string, finished, total int) {
				if token == nil || req.Session == nil {
					return
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Message: msg, Progress: float64(finished), Total: float64(total)})
			}
			opts := PlanRunOptions{Vars: in.Vars, MaxParallel: in.MaxParallel, Resume: in.Resume, MaxCalls: in.MaxCalls}
			return docResult(p.Run(ctx, in.ID, opts, progress))
		})
}

// docResult answers with the doc's JSON as structured content (and its
// text when given); an error becomes a tool error the model can read, and a
// run that failed still shows its state along with the error.
func docResult(doc PlanDoc, err error) (*mcp.CallToolResult, any, error) {
	if err != nil && len(doc.Data) == 0 {
		return errorResult(err), nil, nil
	}
	text := doc.Text
	if text == "" {
		text = string(doc.Data)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if err != nil {
		res.IsError = true
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: err.Error()}}, res.Content...)
	}
	if len(doc.Data) == 0 {
		return res, nil, nil
	}
	return res, doc.Data, nil
}

// noPlans answers the plan tools of a face that was given no plan store.
type noPlans struct{}

var errNoPlans = errors.New("plans are not available in this weft: it found no plans directory (set WEFT_PLANS_DIR)")

// List and the others answer that there are no plans.
func (noPlans) List(context.Context) (PlanList, error) { return PlanList{}, errNoPlans }
func (noPlans) Show(context.Context, string) (PlanDoc, error) {
	return PlanDoc{}, errNoPlans
}
func (noPlans) DryRun(context.Context, string, map[string]any) (PlanDoc, error) {
	return PlanDoc{}, errNoPlans
}
func (noPlans) Run(context.Context, string, PlanRunOptions, func(string, int, int)) (PlanDoc, error) {
	return PlanDoc{}, errNoPlans
}
