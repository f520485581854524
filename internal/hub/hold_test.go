package hub_test

import (
	"testing"

	"github.com/weft-dev/weft/internal/hub"
)

// TestHoldDeliversOneCatalogChange adds two servers under a hold: listeners
// hear nothing while it is held, though the catalog is current, and the
// release delivers one catalog with both servers' tools.
func TestHoldDeliversOneCatalogChange(t *testing.T) {
	h := newHub(t, hub.Options{})
	heard := recordCatalogs(h)
	count := func() int { return len(heard()) }
	before := count()

	release := h.Hold()
	add(t, h, httpServer("alpha", serve(t, upstreamServer("alpha", "echo", nil))))
	add(t, h, httpServer("beta", serve(t, upstreamServer("beta", "echo", nil))))
	has := func(c *hub.Catalog, name string) bool { _, ok := c.Tool(name); return ok }
	await(t, "both servers' tools in the catalog", func() bool {
		c := h.Catalog()
		return has(c, "alpha__echo") && has(c, "beta__echo")
	})
	if n := count(); n != before {
		t.Fatalf("listeners heard %d catalog changes during the hold, want none", n-before)
	}
	release()
	release() // idempotent
	if n := count(); n == before {
		t.Fatal("the release delivered no catalog")
	}
	first := heard()[before] // later ones may follow (status changes); none came in between
	if !has(first, "alpha__echo") || !has(first, "beta__echo") {
		t.Fatal("the first catalog delivered after the hold lacks a server's tools")
	}
}
