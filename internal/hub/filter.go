package hub

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// filterTools returns inv with only the tools keep accepts; the upstream's
// own inventory is left untouched.
func filterTools(server string, inv upstream.Inventory, keep func(string, *mcp.Tool) bool) upstream.Inventory {
	if keep == nil {
		return inv
	}
	tools := make([]*mcp.Tool, 0, len(inv.Tools))
	for _, t := range inv.Tools {
		if keep(server, t) {
			tools = append(tools, t)
		}
	}
	inv.Tools = tools
	return inv
}
