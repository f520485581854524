package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestStubRegistersWithoutDecoding holds go-sdk v1.8.0 to what the stubs
// rely on: AddTool accepts one without panicking, and registering one
// decodes nothing (a decode allocates a 32 KiB buffer; a full definition's
// registration allocates at least two).
func TestStubRegistersWithoutDecoding(t *testing.T) {
	if _, err := json.Marshal(stubSchema); err == nil {
		t.Fatal("the stub schema encodes: go-sdk would decode it to look for header annotations")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "stubs", Version: "1"}, nil)
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	const n = 200
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%d", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, name := range names {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: stubSchema}, h)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Fatalf("registering a stub allocated %d bytes, want no decode (under 8 KiB)", per)
	}
}

// TestListedToolsCarryTheirDefinitions lists the face's tools with the
// go-sdk client in both revisions (a stateful 2025-11-25 session, and the
// default 2026-07-28 client, which go-sdk's stateless handler answers):
// every upstream tool comes with its own input schema, not the stub's, and
// a tool binding an argument to a header, registered whole, too.
func TestListedToolsCarryTheirDefinitions(t *testing.T) {
	g, addr, _ := statelessFace(t, map[string]*config.Server{
		"beta": {Name: "beta", Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, headerServer())}})
	want := map[string][]byte{}
	for _, tool := range g.snapshot().ListedTools() {
		b, err := json.Marshal(tool.Def.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		want[tool.Name] = b
	}
	if want["alpha__echo"] == nil || !bytes.Contains(want["beta__pick"], []byte("x-mcp-header")) {
		t.Fatalf("the upstreams' tools are not in the catalog: %v", want)
	}
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("version "+version, func(t *testing.T) {
			c := mcp.NewClient(&mcp.Implementation{Name: "lister", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + Endpoint},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cs.Close() }()
			got := map[string][]byte{}
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				if got[tool.Name], err = json.Marshal(tool.InputSchema); err != nil {
					t.Fatal(err)
				}
			}
			for name, schema := range want {
				if !bytes.Equal(got[name], schema) {
					t.Errorf("%s listed with schema %s, want %s", name, got[name], schema)
				}
			}
			if got[searchToolName] == nil {
				t.Errorf("the built-in %s is not listed", searchToolName)
			}
		})
	}
}
