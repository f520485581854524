package hub

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// filterTools returns inv with only the tools keep returns; the upstream's
// own inventory is left untouched. keep gets each tool's pin digest,
// computed when the upstream listed it.
func filterTools(server string, inv upstream.Inventory, keep func(string, []*mcp.Tool, []string) []*mcp.Tool) upstream.Inventory {
	if keep == nil {
		return inv
	}
	var pins []string
	if inv.Digests != nil {
		pins = make([]string, len(inv.Tools))
		for i, t := range inv.Tools {
			pins[i] = inv.Digests[t].Pin
		}
	}
	inv.Tools = keep(server, inv.Tools, pins)
	return inv
}
