package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestAddedToolIsAnnouncedListedAndCallable: with the face registering
// stubs, a server added while a go-sdk client is connected still reaches
// it as tools/list_changed, its tools list with their own schemas, and
// they answer calls.
func TestAddedToolIsAnnouncedListedAndCallable(t *testing.T) {
	// Served first, so that it stops after the hub has let it go.
	delta := &config.Server{Name: "delta", Type: config.TransportHTTP,
		Target: testutil.ServeHTTP(t, testutil.NewServer(testutil.ServerOptions{Name: "delta"}))}
	f := newFixture(t, true)
	ctx := context.Background()
	if _, err := f.hub.Add(ctx, delta); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.rec.toolsChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed after adding a server")
	}
	var listed *mcp.Tool
	for tool, err := range f.session.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "delta__echo" {
			listed = tool
		}
	}
	if listed == nil {
		t.Fatal("delta__echo is not listed")
	}
	schema, err := json.Marshal(listed.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var props struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(schema, &props); err != nil || props.Properties["text"] == nil {
		t.Fatalf("delta__echo listed with schema %s, want its own (a text property)", schema)
	}
	if got := text(f.call(t, "delta__echo", map[string]any{"text": "hi"})); !strings.Contains(got, "delta:hi") {
		t.Fatalf("delta__echo answered %q", got)
	}
}
