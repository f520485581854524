package hub

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// filterTools returns inv with only the tools keep returns; the upstream's
// own inventory is left untouched.
func filterTools(server string, inv upstream.Inventory, keep func(string, []*mcp.Tool) []*mcp.Tool) upstream.Inventory {
	if keep == nil {
		return inv
	}
	inv.Tools = keep(server, inv.Tools)
	return inv
}
