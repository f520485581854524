package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdkjson "github.com/segmentio/encoding/json"
)

// typedPage is what go-sdk's client makes of a tools/list result, with
// weft's rawSchemas after it: its decoder (segmentio's, keys matched
// exactly), nil tools dropped (filterValidTools).
func typedPage(t *testing.T, result string) (tools []*mcp.Tool, next string, err error) {
	t.Helper()
	dec := sdkjson.NewDecoder(strings.NewReader(result))
	dec.DontMatchCaseInsensitiveStructFields()
	var res mcp.ListToolsResult
	if err := dec.Decode(&res); err != nil {
		return nil, "", err
	}
	for _, tool := range res.Tools {
		if tool != nil {
			tools = append(tools, tool)
		}
	}
	rawSchemas(tools)
	return tools, res.NextCursor, nil
}

// checkRawPage holds the raw list's reading of a page to go-sdk's: when
// read accepts it, the tools, their digests and the cursor are go-sdk's.
func checkRawPage(t *testing.T, result string) (accepted bool) {
	t.Helper()
	pg := toolPage{schemas: map[string]json.RawMessage{}}
	var got []*mcp.Tool
	next, ok := pg.read([]byte(result), &got)
	if !ok {
		return false
	}
	want, wantNext, err := typedPage(t, result)
	if err != nil {
		t.Fatalf("%s: read accepted a page go-sdk refuses: %v", result, err)
	}
	if next != wantNext || !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nraw   %s %q\ngo-sdk %s %q", result, toolsJSON(got), next, toolsJSON(want), wantNext)
	}
	gotDigests, wantDigests := digests(got), digests(want)
	for i := range got {
		if gotDigests[got[i]] != wantDigests[want[i]] {
			t.Fatalf("%s: tool %d's digests %+v, go-sdk's %+v", result, i, gotDigests[got[i]], wantDigests[want[i]])
		}
	}
	return true
}

func toolsJSON(tools []*mcp.Tool) string {
	var b strings.Builder
	for _, tool := range tools {
		j, _ := json.Marshal(tool)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// rawPages are tools/list results the raw list reads.
var rawPages = []string{
	`{"tools":[]}`,
	`{"tools":null}`,
	`{}`,
	`{"ttlMs":0,"cacheScope":"public","resultType":"complete","tools":[]}`,
	`{"ttlMs":-12,"cacheScope":null,"resultType":null,"tools":[]}`,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"c2"}`,
	`{"nextCursor":null,"tools":[{"name":"x","title":"T","description":"<d> & \u00e9 \u2028 \"q\"","inputSchema":{"type":"object","properties":{"z":{"type":"number","default":1.0},"a":{"enum":[1e21,-0,1e-7,12345678901234567890]}}},"outputSchema":{"type":"object","required":["r"]}}]}`,
	`{"tools":[{"name":"m","inputSchema":{"type":"object"},"_meta":{"k":[1,{"v":null}],"é":"\ud83d\ude00"},"annotations":{"readOnlyHint":true,"destructiveHint":false,"title":"A","idempotentHint":false,"openWorldHint":null}}]}`,
	`{"tools":[{"name":"n","inputSchema":{"type":"object"},"outputSchema":null,"annotations":null,"_meta":null,"description":null,"title":null,"execution":{"taskSupport":"optional"},"Name":"ignored","NAME":1,"inputschema":"ignored too"}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":"data:x","mimeType":"image/png","sizes":["48x48","any"],"theme":"dark"},{"src":"s","sizes":null}]},{"name":"j","inputSchema":{},"icons":null}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":[]}]}`,
	`{"tools":[{"inputSchema":{"type":"object"}},{"name":"no schema"},{"name":"not an object","inputSchema":"s"},{"name":"array","inputSchema":[1,2]}],"_meta":{"m":1},"other":[true]}`,
	" { \"tools\" : [ { \"name\" : \"spaced\" , \"inputSchema\" : { \"type\" : \"object\" , \"b\" : [ 1 , 2 ] } } ] , \"nextCursor\" : \"\" } ",
}

// declinedPages are results the raw list hands to go-sdk.
var declinedPages = []string{
	`{"tools":[null]}`,
	`{"tools":[{"name":"h","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"P"}}}}]}`,
	`{"tools":[{"name":"h","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-\u0068eader":"P"}}}}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":"data:x","Src":"y"}]}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":[null]}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":[{"src":1}]}]}`,
	`{"tools":[{"name":"i","inputSchema":{"type":"object"},"icons":{}}]}`,
	`{"tools":[{"name":"d","name":"e","inputSchema":{"type":"object"}}]}`,
	`{"tools":[{"n\u0061me":"e","inputSchema":{"type":"object"}}]}`,
	`{"tools":[{"name":"s","inputSchema":{"type":"object","a":1,"a":2}}]}`,
	`{"tools":[{"name":"s","inputSchema":{"type":"object","d":"\ud800"}}]}`,
	`{"tools":[{"name":"s","inputSchema":{"type":"object","n":1e400}}]}`,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readonlyhint":true}}]}`,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}]}`,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"},"_meta":[1]}]}`,
	`{"tools":[{"name":1,"inputSchema":{"type":"object"}}]}`,
	`{"tools":{},"nextCursor":"x"}`,
	`{"tools":[],"nextCursor":7}`,
	`{"tools":[],"tools":[]}`,
	`{"tools":[],"ttlMs":5.5}`,
	`{"tools":[],"ttlMs":1e3}`,
	`{"tools":[],"cacheScope":1}`,
	`{"tools":[],"resultType":{}}`,
	"{\"tools\":[{\"name\":\"\xff\",\"inputSchema\":{}}]}",
	`{"tools":[]} x`,
	`[]`,
}

func TestRawPageReadsAsGoSDK(t *testing.T) {
	for _, page := range rawPages {
		if !checkRawPage(t, page) {
			t.Errorf("the raw list declined %s", page)
		}
	}
	for _, page := range declinedPages {
		if checkRawPage(t, page) {
			t.Errorf("the raw list read %s, want it handed to go-sdk", page)
		}
	}
}

// TestRawPageSharesEachSchemaOnce: tools with one schema on the wire hold
// one canonical copy of it.
func TestRawPageSharesEachSchemaOnce(t *testing.T) {
	pg := toolPage{schemas: map[string]json.RawMessage{}}
	var tools []*mcp.Tool
	page := `{"tools":[{"name":"a","inputSchema":{"type":"object","b":1,"a":2}},{"name":"b","inputSchema":{"type":"object","b":1,"a":2}}]}`
	if _, ok := pg.read([]byte(page), &tools); !ok || len(tools) != 2 {
		t.Fatalf("read: %d tools, ok %v", len(tools), ok)
	}
	a, b := tools[0].InputSchema.(json.RawMessage), tools[1].InputSchema.(json.RawMessage)
	if string(a) != `{"a":2,"b":1,"type":"object"}` || &a[0] != &b[0] {
		t.Errorf("schemas %s and %s, want one canonical copy", a, b)
	}
}

// FuzzRawPage holds the raw list's reading to go-sdk's over any page.
func FuzzRawPage(f *testing.F) {
	for _, page := range append(append([]string{}, rawPages...), declinedPages...) {
		f.Add(page)
	}
	f.Fuzz(func(t *testing.T, page string) {
		checkRawPage(t, page)
	})
}

// listServer serves tools of every shape the raw list reads, and one it
// hands to go-sdk (an x-mcp-header annotation) when declined is set.
func listServer(declined string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "list", Version: "1"}, &mcp.ServerOptions{PageSize: 3})
	noop := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}
	yes := true
	for i, schema := range []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{"z":{"type":"number","default":1.0,"maximum":1e21},"a":{"type":"string","description":"<b> & é \u2028"}},"required":["z"]}`,
		`{"type":"object","properties":{"n":{"enum":[12345678901234567890,-0,1e-7,0.1]}}}`,
		`{"type":"object"}`,
	} {
		s.AddTool(&mcp.Tool{
			Name: "t" + string(rune('a'+i)), Title: "T", Description: "d <&>",
			InputSchema:  json.RawMessage(schema),
			OutputSchema: json.RawMessage(`{"type":"object"}`),
			Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes, Title: "a"},
			Meta:         mcp.Meta{"k": []any{1.5, "v"}},
		}, noop)
	}
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)}, noop)
	s.AddTool(&mcp.Tool{Name: "icons", InputSchema: json.RawMessage(`{"type":"object"}`), Icons: []mcp.Icon{{Source: "data:x", Sizes: []string{"any"}}}}, noop)
	if declined != "" {
		s.AddTool(&mcp.Tool{Name: "declined", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string","x-mcp-header":"` + declined + `"}}}`)}, noop)
	}
	return s
}

// TestRawListGivesWhatGoSDKLists lists live upstreams (Streamable HTTP
// with both response kinds, and stdio) both ways: the tools and their
// digests are the same, and listTools takes the raw path unless a tool
// is one it hands to go-sdk.
func TestRawListGivesWhatGoSDKLists(t *testing.T) {
	type upstream struct {
		name string
		conn func(t *testing.T) *Conn
		raw  bool
	}
	var ups []upstream
	for _, mode := range httpModes {
		ups = append(ups,
			upstream{"http-" + mode.name, func(t *testing.T) *Conn { return dialHTTPMode(t, listServer(""), mode.opts) }, true},
			upstream{"http-" + mode.name + "-declined", func(t *testing.T) *Conn { return dialHTTPMode(t, listServer("P"), mode.opts) }, false})
	}
	ups = append(ups, upstream{"stdio", dialStdio, true})
	for _, up := range ups {
		t.Run(up.name, func(t *testing.T) {
			c := up.conn(t)
			ctx := context.Background()
			_, raw, err := c.listToolsRaw(ctx)
			if err != nil || raw != up.raw {
				t.Fatalf("listToolsRaw: raw %v, err %v; want raw %v", raw, err, up.raw)
			}
			got, err := c.listTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := checkListedAsGoSDK(t, c, got)
			if inv := c.Inventory(); !bytes.Equal([]byte(toolsJSON(inv.Tools)), []byte(toolsJSON(want))) {
				t.Errorf("the inventory's tools differ from go-sdk's list")
			}
		})
	}
}

// checkListedAsGoSDK holds tools listed from c to what go-sdk's typed list
// of c gives (with rawSchemas after it): the same tools, at least two, and
// the same digests. It returns go-sdk's list.
func checkListedAsGoSDK(t *testing.T, c *Conn, got []*mcp.Tool) []*mcp.Tool {
	t.Helper()
	want, err := collect(c.session.Tools(context.Background(), nil))
	if err != nil {
		t.Fatal(err)
	}
	rawSchemas(want)
	if len(got) < 2 || !reflect.DeepEqual(got, want) {
		t.Fatalf("listed:\n%s\ngo-sdk:\n%s", toolsJSON(got), toolsJSON(want))
	}
	gotDigests, wantDigests := digests(got), digests(want)
	for i := range got {
		if gotDigests[got[i]] != wantDigests[want[i]] {
			t.Errorf("%s: digests %+v, go-sdk's %+v", got[i].Name, gotDigests[got[i]], wantDigests[want[i]])
		}
	}
	return want
}
