package upstream

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's client decodes every page of tools/list into typed tools, each
// schema into nested maps, which weft then encodes again (rawSchemas) to
// keep and digest it: at 10 upstreams of 1,000 tools that was about 60 ms
// of weft's start (docs/guides/performance.md, "Fan-in: listing tools
// without go-sdk's typed decode"). Where weft already sends its own
// tools/call (rawConn on stdio, weft's POST on Streamable HTTP), it sends
// tools/list the same way and builds each tool from the page's JSON: the
// schemas in their canonical form (canonical), which is the bytes
// rawSchemas made of go-sdk's maps, so the tools, their digests and pins
// are what go-sdk's path gives. Anything the raw path is not certain to
// read as go-sdk does (a member of go-sdk's types it does not read, an
// x-mcp-header annotation go-sdk's client checks, a key with escapes, a
// duplicate, a value canonical declines, a failed request) sends the whole
// list through go-sdk, as before.

// listMethod is the method of weft's own list requests, whose results
// toolPage.read alone checks (resultOfList).
const listMethod = "tools/list"

// listTools lists every tool of the upstream, its schemas as JSON bytes.
func (c *Conn) listTools(ctx context.Context) ([]*mcp.Tool, error) {
	tools, ok, err := c.listToolsRaw(ctx)
	if ok || err != nil {
		return tools, err
	}
	if tools, err = collect(c.session.Tools(ctx, nil)); err != nil {
		return nil, err
	}
	rawSchemas(tools)
	return tools, nil
}

// rawSender sends one request of weft's own and returns its result as
// the upstream sent it.
type rawSender func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// rawLister is how this connection sends weft's own requests, nil where
// it has no such path or the list is go-sdk's: on 2026-07-28 go-sdk's
// session adds per-request metadata and caches the pages.
func (c *Conn) rawLister() rawSender {
	switch {
	case c.newProtocol():
		return nil
	case c.raw != nil:
		return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			return c.raw.call(ctx, c.life.Done(), time.Time{}, method, params)
		}
	case c.poster != nil:
		return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			return c.post(ctx, nil, method, params)
		}
	}
	return nil
}

// listToolsRaw lists every page through rawLister; ok is false when the
// list must go through go-sdk (err is then nil). A failed request hands
// the list to go-sdk too, whose error is the one callers know, unless
// the list's context or the connection ended.
func (c *Conn) listToolsRaw(ctx context.Context) (tools []*mcp.Tool, ok bool, err error) {
	send := c.rawLister()
	if send == nil {
		return nil, false, nil
	}
	page := toolPage{schemas: map[string]json.RawMessage{}}
	params := &mcp.ListToolsParams{}
	for {
		data, err := json.Marshal(params)
		if err != nil {
			return nil, false, nil
		}
		result, err := send(ctx, listMethod, data)
		if err != nil {
			if ctx.Err() != nil || c.life.Err() != nil {
				return nil, false, err
			}
			c.logger.Debug("tools/list: weft's own request failed; listing through go-sdk", "err", err)
			return nil, false, nil
		}
		next, ok := page.read(result, &tools)
		if !ok {
			c.logger.Debug("tools/list: a page the raw list does not read; listing through go-sdk")
			return nil, false, nil
		}
		if next == "" {
			return tools, true, nil
		}
		params.Cursor = next
	}
}

// toolPage reads the pages of one list.
type toolPage struct {
	// schemas holds each schema's canonical bytes by its bytes on the
	// wire: the tools of a server often share a schema, which is then
	// made canonical (and kept) once.
	schemas map[string]json.RawMessage
}

// The JSON names of go-sdk's types, which its decoder matches exactly.
var (
	listResultNames  = jsonNames(reflect.TypeFor[mcp.ListToolsResult]())
	toolNames        = jsonNames(reflect.TypeFor[mcp.Tool]())
	annotationsNames = jsonNames(reflect.TypeFor[mcp.ToolAnnotations]())
	iconNames        = jsonNames(reflect.TypeFor[mcp.Icon]())
)

// read appends the tools of one page's result to tools and returns its
// next cursor; ok is false when the page is not one it reads.
func (pg *toolPage) read(result []byte, tools *[]*mcp.Tool) (next string, ok bool) {
	p := canonParser{jsonWalk: jsonWalk{data: result}}
	p.space()
	ok = p.members(func(key string, p *canonParser) bool {
		switch key {
		case "tools":
			return pg.readTools(p, tools)
		case "nextCursor":
			next, ok = p.optString()
			return ok
		// go-sdk decodes these too (its servers send the cache hints on
		// every revision), and weft uses none of them.
		case "_meta":
			return p.optObjectSkipped()
		case "ttlMs":
			return p.optShortInt()
		case "cacheScope", "resultType":
			_, ok := p.optString()
			return ok
		}
		return !listResultNames[key] && p.skip()
	})
	p.space()
	return next, ok && p.pos == len(p.data)
}

// readTools reads a page's list of tools.
func (pg *toolPage) readTools(p *canonParser, tools *[]*mcp.Tool) bool {
	if p.null() {
		return true
	}
	return p.elements(func(p *canonParser) bool {
		t, ok := pg.readTool(p)
		*tools = append(*tools, t)
		return ok
	})
}

// readTool reads one tool (a null one go-sdk drops, with a log line: not
// read here).
func (pg *toolPage) readTool(p *canonParser) (*mcp.Tool, bool) {
	t := &mcp.Tool{}
	ok := p.members(func(key string, p *canonParser) bool {
		switch key {
		case "name":
			return p.optStringInto(&t.Name)
		case "description":
			return p.optStringInto(&t.Description)
		case "title":
			return p.optStringInto(&t.Title)
		case "inputSchema":
			s, ok := pg.schema(p)
			t.InputSchema = schemaValue(s)
			// go-sdk's client checks this annotation itself.
			return ok && !strings.Contains(string(s), string(headerKey))
		case "outputSchema":
			s, ok := pg.schema(p)
			t.OutputSchema = schemaValue(s)
			return ok
		case "annotations":
			return p.decodeInto(&t.Annotations, annotationsNames)
		case "_meta":
			return p.decodeInto(&t.Meta, nil)
		case "icons":
			return p.decodeListInto(&t.Icons, iconNames)
		}
		return !toolNames[key] && p.skip()
	})
	return t, ok
}

// schemaValue is a schema as a tool holds it: null is the untyped nil
// go-sdk leaves, not a nil json.RawMessage.
func schemaValue(s json.RawMessage) any {
	if s == nil {
		return nil
	}
	return s
}

// schema reads a schema: its canonical bytes, or nil for null.
func (pg *toolPage) schema(p *canonParser) (json.RawMessage, bool) {
	start := p.pos
	if !p.skipRaw() {
		return nil, false
	}
	raw := p.data[start:p.pos]
	if string(raw) == "null" {
		return nil, true
	}
	if s, ok := pg.schemas[string(raw)]; ok {
		return s, true
	}
	s, ok := canonical(nil, raw)
	if !ok {
		return nil, false
	}
	pg.schemas[string(raw)] = s
	return s, true
}

// jsonNames lists the member names encoding/json gives t's fields,
// those of embedded structs included.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-":
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			for n := range jsonNames(ft) {
				names[n] = true
			}
		case !f.IsExported() && !f.Anonymous:
		case name == "":
			names[f.Name] = true
		default:
			names[name] = true
		}
	}
	return names
}
