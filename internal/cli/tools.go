package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/toolset"
)

// hubTools adapts the hub to toolset.Caller and toolset.Describer, the only
// view of the catalog that plans and the agent get.
type hubTools struct{ h *hub.Hub }

var (
	_ toolset.Caller    = hubTools{}
	_ toolset.Describer = hubTools{}
)

func (a hubTools) Tools() []toolset.Tool {
	cat := a.h.Catalog()
	out := make([]toolset.Tool, 0, len(cat.Tools))
	for _, t := range cat.Tools {
		schema, _ := json.Marshal(t.Def.InputSchema)
		out = append(out, toolset.Tool{Name: t.Name, Server: t.Server, Description: t.Def.Description, InputSchema: schema})
	}
	return out
}

func (a hubTools) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	if _, ok := a.h.Catalog().Tool(name); !ok {
		return nil, fmt.Errorf("%w %q", toolset.ErrUnknownTool, name)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments of %s: %w", name, err)
	}
	return a.h.CallTool(ctx, nil, name, raw, nil)
}

func (a hubTools) Servers() []toolset.ServerInfo {
	list := a.h.List()
	out := make([]toolset.ServerInfo, 0, len(list))
	for _, s := range list {
		out = append(out, toolset.ServerInfo{Name: s.Name, Status: string(s.Status), Breaker: string(s.Breaker)})
	}
	return out
}

func (a hubTools) ResourceNames() []string {
	var out []string
	for _, r := range a.h.Catalog().Resources {
		out = append(out, r.Def.URI)
	}
	return out
}

func (a hubTools) PromptNames() []string {
	var out []string
	for _, p := range a.h.Catalog().Prompts {
		out = append(out, p.Name)
	}
	return out
}
