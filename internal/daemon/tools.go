package daemon

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/toolset"
)

// HubTools adapts a hub to toolset.Caller and toolset.Describer, the only
// view of the catalog that plans and the agent get: everything, or one
// agent's view (ToolsAs).
type HubTools struct {
	h *hub.Hub
	v *agentview.View
}

// ToolsOf is the view of h's catalog that plans and the agent get.
func ToolsOf(h *hub.Hub) HubTools { return HubTools{h, agentview.Everything("", -1)} }

// ToolsAs is ToolsOf within view v: names are the agent's, and a tool
// outside the view is unknown.
func ToolsAs(h *hub.Hub, v *agentview.View) HubTools { return HubTools{h, v} }

// snapshot is the view of the current catalog.
func (a HubTools) snapshot() *agentview.Snapshot { return a.v.Of(a.h.Catalog()) }

// PlanTools adds the tools' idempotency annotations to HubTools, so that
// resuming a plan may re-run an interrupted read-only or idempotent step.
type PlanTools struct{ HubTools }

var _ plan.Idempotency = PlanTools{}

// Idempotent reports whether re-running the tool is safe: annotated
// idempotent or read-only.
func (t PlanTools) Idempotent(name string) bool {
	cat := t.h.Catalog()
	hubName, err := t.v.Resolve(cat, name)
	if err != nil {
		return false
	}
	tool, ok := cat.Tool(hubName)
	if !ok || tool.Def == nil || tool.Def.Annotations == nil {
		return false
	}
	ann := tool.Def.Annotations
	return ann.ReadOnlyHint || ann.IdempotentHint
}

var (
	_ toolset.Caller    = HubTools{}
	_ toolset.Describer = HubTools{}
)

// Tools lists the exposed tools with their input schemas.
func (a HubTools) Tools() []toolset.Tool {
	cat := a.snapshot()
	out := make([]toolset.Tool, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		schema, _ := json.Marshal(t.Def.InputSchema)
		out = append(out, toolset.Tool{Name: t.Name, Server: t.Server, Description: t.Def.Description, InputSchema: schema})
	}
	return out
}

// CallTool calls an exposed tool through the hub.
func (a HubTools) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	cat := a.h.Catalog()
	hubName, err := a.v.Resolve(cat, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", toolset.ErrUnknownTool, err)
	}
	if _, ok := cat.Tool(hubName); !ok {
		if why := gateway.InstanceUnavailable(a.h, a.v, name); why != nil {
			return nil, fmt.Errorf("%w %q: %w", toolset.ErrUnknownTool, name, why) // the state, not just "unknown"
		}
		return nil, fmt.Errorf("%w %q", toolset.ErrUnknownTool, name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments of %s: %w", name, err)
	}
	if a.v.IsAgent() {
		if c := hub.CallerFrom(ctx); c.Agent == "" {
			c.Agent = a.v.Name() // a run as a configured agent
			ctx = hub.WithCaller(ctx, c)
		}
	}
	return a.h.CallTool(ctx, nil, hubName, raw, nil)
}

// Servers lists each server with its status.
func (a HubTools) Servers() []toolset.ServerInfo {
	list := a.h.List()
	out := make([]toolset.ServerInfo, 0, len(list))
	for _, s := range list {
		name, ok := a.v.ServerSeen(s.Name)
		if !ok {
			continue
		}
		out = append(out, toolset.ServerInfo{Name: name, Status: string(s.Status), Breaker: string(s.Breaker)})
	}
	return out
}

// ResourceNames lists the exposed resources.
func (a HubTools) ResourceNames() []string {
	var out []string
	for _, r := range a.snapshot().Resources {
		out = append(out, r.Def.URI)
	}
	return out
}

// PromptNames lists the exposed prompts.
func (a HubTools) PromptNames() []string {
	var out []string
	for _, p := range a.snapshot().Prompts {
		out = append(out, p.Name)
	}
	return out
}

// The agent shows resource and prompt descriptions next to their names.
var _ agent.ItemDescriber = HubTools{}

// ResourceDescriptions maps each resource URI to its description.
func (a HubTools) ResourceDescriptions() map[string]string {
	out := map[string]string{}
	for _, r := range a.snapshot().Resources {
		out[r.Def.URI] = r.Def.Description
	}
	return out
}

// PromptDescriptions maps each exposed prompt name to its description.
func (a HubTools) PromptDescriptions() map[string]string {
	out := map[string]string{}
	for _, p := range a.snapshot().Prompts {
		out[p.Name] = p.Def.Description
	}
	return out
}
