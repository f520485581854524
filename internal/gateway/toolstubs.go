package gateway

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// go-sdk's Server.AddTool decodes a tool's input schema twice, each time
// through a fresh 32 KiB buffer: once to check its type, once to look for
// x-mcp-header annotations. Registering 10,000 upstream tools that way was
// the largest part of weft's CPU from start to all listed
// (docs/guides/performance.md, "Fan-in and listing without AddTool"), and
// weft has checked each schema already, once, when its upstream listed it
// (internal/upstream/validate.go).
//
// So go-sdk holds a stub of each forwarded tool: its name, under which
// go-sdk routes tools/call, answers unknown names, orders and pages
// tools/list and sends list_changed as before, with a shared object schema
// that costs AddTool nothing to check. tools/list then gets each stub's
// definition back from the face (listedDefinitions). A tool whose schema
// binds arguments to headers is registered whole: go-sdk checks its
// annotations and, on each call, the headers against them.

// stubSchema is the input schema of every stub. AddTool reads the type of
// a *jsonschema.Schema without encoding it; its scan for header
// annotations (and, on each call, go-sdk's check of a call's headers)
// encodes the schema first, and this one, which sets both Type and Types,
// refuses to encode at once: no annotations, nothing decoded.
// TestStubRegistersWithoutDecoding holds go-sdk to that. No stub is ever
// listed (listedDefinitions), so no client sees it.
var stubSchema = &jsonschema.Schema{Type: "object", Types: []string{"object"}}

// registration is what sync registers with go-sdk for a listed upstream
// tool: the definition itself when go-sdk must read its schema, else a stub.
func (g *Gateway) registration(t *hub.Tool) *mcp.Tool {
	if g.headerTools[t.Name] {
		return t.Def
	}
	return &mcp.Tool{Name: t.Name, InputSchema: stubSchema}
}

// publishDefinitions records the definitions of the listed upstream tools
// for listedDefinitions; sync calls it before registering their stubs, so
// that a list never meets a stub without its definition.
func (g *Gateway) publishDefinitions(listed []*hub.Tool) {
	defs := make(map[string]*mcp.Tool, len(listed))
	for _, t := range listed {
		defs[t.Name] = t.Def
	}
	g.toolDefs.Store(&defs)
}

// listedDefinitions is the face's innermost receiving middleware: it puts
// each stub in go-sdk's tools/list result back to the tool's definition.
// go-sdk makes a new Tools slice for every result, so it is rewritten in
// place. A stub whose tool the face no longer lists (sync is removing it)
// is left out.
func (g *Gateway) listedDefinitions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || method != "tools/list" || lr == nil {
			return res, err
		}
		lr.Tools = g.definitions(lr.Tools)
		return lr, nil
	}
}

// definitions replaces the stubs in tools by their definitions.
func (g *Gateway) definitions(tools []*mcp.Tool) []*mcp.Tool {
	defs := g.toolDefs.Load()
	out := tools[:0]
	for _, t := range tools {
		if t.InputSchema == stubSchema {
			if defs == nil || (*defs)[t.Name] == nil {
				continue
			}
			t = (*defs)[t.Name]
		}
		out = append(out, t)
	}
	return out
}
