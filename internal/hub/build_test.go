package hub

import (
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

func inventoryOf(prefix string, n int) upstream.Inventory {
	var inv upstream.Inventory
	for i := range n {
		inv.Tools = append(inv.Tools, &mcp.Tool{Name: fmt.Sprintf("%s%d", prefix, i), InputSchema: map[string]any{"type": "object"}})
	}
	return inv
}

// TestCatalogBuildReusesUnchangedTools: a build over the sources of the
// last one plus another keeps the earlier tools as they were built, and
// builds anew a tool whose upstream definition or listed flag changed.
func TestCatalogBuildReusesUnchangedTools(t *testing.T) {
	a, b := source{name: "a", namespace: "a", inv: inventoryOf("t", 3)}, source{name: "b", namespace: "b", inv: inventoryOf("t", 2)}
	build := func(prev *Catalog, maxTools int, sources ...source) *Catalog {
		return buildCatalog(prev, sources, "__", maxTools, nil, &owners{}, map[string]string{"a": "a", "b": "b"})
	}
	first := build(nil, 0, a)
	second := build(first, 0, a, b)
	if len(second.Tools) != 5 {
		t.Fatalf("built %d tools, want 5", len(second.Tools))
	}
	for _, tool := range first.Tools {
		if second.tools[tool.Name] != tool {
			t.Errorf("%s was built again, want it reused", tool.Name)
		}
	}
	changed := a
	changed.inv = inventoryOf("t", 3) // the upstream listed again: new definitions
	third := build(second, 0, changed, b)
	if third.tools["a__t0"] == second.tools["a__t0"] || third.tools["b__t0"] != second.tools["b__t0"] {
		t.Error("a re-listed upstream's tool was reused, or an unchanged one was not")
	}
	if got := third.tools["a__t0"]; got.Def.Name != "a__t0" || got.Original != "t0" || got.Def == changed.inv.Tools[0] {
		t.Errorf("rebuilt tool %+v, want a copy of the new definition under its exposed name", got)
	}
	capped := build(third, 4, changed, b)
	if last := capped.tools["b__t1"]; last == third.tools["b__t1"] || last.Listed {
		t.Error("a tool past the cap kept its listed flag")
	}
}
