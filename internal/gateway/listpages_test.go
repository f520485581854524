package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// listClient speaks just enough Streamable HTTP (2025-11-25, a stateful
// session, or 2026-07-28 requests without one) to page through tools/list
// and see who answered each page.
type listClient struct {
	t           *testing.T
	url, sessID string
	id          int
	stateless   bool
}

func newListClient(t *testing.T, url string) *listClient {
	c := &listClient{t: t, url: url}
	c.post("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"lister","version":"1"}}`)
	c.post("notifications/initialized", "")
	return c
}

// newStatelessListClient is a listClient whose requests are 2026-07-28's,
// each with the _meta go-sdk's client sends.
func newStatelessListClient(t *testing.T, url string) *listClient {
	return &listClient{t: t, url: url, stateless: true}
}

// listClients are the two kinds of listClient, by name.
var listClients = []struct {
	name string
	new  func(*testing.T, string) *listClient
}{{"session", newListClient}, {"stateless", newStatelessListClient}}

// post sends one request (a notification when params is "") and returns
// its response's JSON and the response's Content-Type.
func (c *listClient) post(method, params string) (data []byte, kind string) {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q`, method)
	if params != "" {
		c.id++
		body += fmt.Sprintf(`,"id":%d,"params":%s`, c.id, params)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, strings.NewReader(body+"}"))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if c.stateless {
		req.Header.Set("Mcp-Protocol-Version", newestVersion)
		req.Header.Set("Mcp-Method", method)
	}
	if c.sessID != "" {
		req.Header.Set(sessionHeader, c.sessID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get(sessionHeader); id != "" {
		c.sessID = id
	}
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("%s: %s: %s", method, resp.Status, msg)
	}
	kind = strings.Split(resp.Header.Get("Content-Type"), ";")[0]
	if kind != "text/event-stream" {
		data, _ = io.ReadAll(resp.Body)
		return data, kind
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && bytes.Contains(d, []byte(`"id"`)) && data == nil {
			data = bytes.Clone(d)
		}
	}
	// Read to the end: the relay keeps go-sdk's page once go-sdk's handler
	// has returned, which may be after the response's last event.
	return data, kind
}

// listPage is one tools/list page as a client reads it.
type listPage struct {
	result json.RawMessage // the result's bytes
	names  []string
	next   string
	kind   string // who answered: text/event-stream for go-sdk, application/json for the relay
}

// page lists the page after cursor; meta adds a key to the params' _meta,
// which the relay leaves to go-sdk.
func (c *listClient) page(cursor string, meta bool) listPage {
	c.t.Helper()
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	m := map[string]any{}
	if c.stateless {
		m = map[string]any{mcp.MetaKeyProtocolVersion: newestVersion, mcp.MetaKeyClientCapabilities: map[string]any{},
			mcp.MetaKeyClientInfo: map[string]any{"name": "lister", "version": "1"}}
	}
	if meta {
		m["note"] = "to go-sdk"
	}
	if len(m) > 0 {
		params["_meta"] = m
	}
	p, _ := json.Marshal(params)
	data, kind := c.post("tools/list", string(p))
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &resp); err != nil || resp.Error != nil {
		c.t.Fatalf("tools/list %q: %v %s", cursor, err, resp.Error)
	}
	var res struct {
		Tools      []struct{ Name string } `json:"tools"`
		NextCursor string                  `json:"nextCursor"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		c.t.Fatal(err)
	}
	pg := listPage{result: resp.Result, next: res.NextCursor, kind: kind}
	for _, tool := range res.Tools {
		pg.names = append(pg.names, tool.Name)
	}
	return pg
}

// walk lists every page from the first.
func (c *listClient) walk(meta bool) []listPage {
	var out []listPage
	cursor := ""
	for {
		pg := c.page(cursor, meta)
		out = append(out, pg)
		if cursor = pg.next; cursor == "" {
			return out
		}
		if len(out) > 100 {
			c.t.Fatal("the cursor walk does not end")
		}
	}
}

// listedFace serves a face of view over a hub with HTTP upstreams alpha
// (1,500 tools) and beta (600), listing every tool the view lists. It
// returns the hub's servers, and a spare server "an" (3 tools, named
// between alpha's and beta's) a test may add.
func listedFace(t *testing.T, view *agentview.View, mw ...mcp.Middleware) (*hub.Hub, map[string]*config.Server, *config.Server, string) {
	t.Helper()
	h := hub.New(hub.Options{Reserved: BuiltinNames, MaxTools: 1 << 20})
	servers := map[string]*config.Server{}
	for name, n := range map[string]int{"alpha": 1500, "beta": 600} {
		servers[name] = &config.Server{Name: name, Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, testutil.NewEchoServer(name, n))}
	}
	spare := &config.Server{Name: "an", Type: config.TransportHTTP, Target: testutil.ServeHTTP(t, testutil.NewEchoServer("an", 3))} // closed after the face
	if res := h.Apply(context.Background(), servers); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	g := New(h, Options{Version: "test", View: view, Middleware: mw})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(func() {
		srv.Close()
		g.CloseSessions()
		h.Close(context.Background())
	})
	return h, servers, spare, srv.URL + Endpoint
}

func TestRelayListsGoSDKPages(t *testing.T) {
	coder := agentview.New(&config.AgentSpec{Name: "coder", MaxTools: 1200, Uses: map[string]*config.AgentServer{
		"alpha": {Instance: "alpha", Namespace: "a"},
	}}, "", BuiltinNames)
	for _, tc := range []struct {
		name   string
		view   *agentview.View
		listed int // upstream tools listed; the rest are search-only
	}{
		{"main face", nil, 2100},
		{"agent face", coder, 1200},
	} {
		for _, client := range listClients {
			t.Run(tc.name+"/"+client.name, func(t *testing.T) {
				_, _, _, url := listedFace(t, tc.view)
				c := client.new(t, url)
				first := c.walk(false) // go-sdk answers; the relay keeps its pages
				kept := c.walk(false)  // the relay answers from them
				sdk := c.walk(true)    // go-sdk answers again
				if len(first) < 2 || len(kept) != len(first) || len(sdk) != len(first) {
					t.Fatalf("pages: %d, %d, %d; want the same number, at least 2", len(first), len(kept), len(sdk))
				}
				seen := map[string]bool{}
				for i := range first {
					if first[i].kind != "text/event-stream" || kept[i].kind != "application/json" || sdk[i].kind != "text/event-stream" {
						t.Fatalf("page %d answered as %s, %s, %s; want go-sdk, the relay, go-sdk", i, first[i].kind, kept[i].kind, sdk[i].kind)
					}
					if !bytes.Equal(kept[i].result, first[i].result) || !bytes.Equal(kept[i].result, sdk[i].result) {
						t.Fatalf("page %d: the relay's result differs from go-sdk's", i)
					}
					for _, name := range kept[i].names {
						if seen[name] {
							t.Fatalf("%s listed twice", name)
						}
						seen[name] = true
					}
				}
				if want := tc.listed + len(BuiltinNames); len(seen) != want {
					t.Fatalf("listed %d tools, want %d (%d upstream tools and the built-ins)", len(seen), want, tc.listed)
				}
				for _, b := range BuiltinNames {
					if !seen[b] {
						t.Fatalf("built-in %s not listed", b)
					}
				}
			})
		}
	}
}

// A change of the face's tools between two pages drops the kept pages: the
// next page is go-sdk's for the new catalog (the tools after the cursor's
// name), as without the relay, and the client's next walk lists the change.
func TestRelayListAfterACatalogChange(t *testing.T) {
	for _, client := range listClients {
		t.Run(client.name, func(t *testing.T) { listAfterACatalogChange(t, client.new) })
	}
}

func listAfterACatalogChange(t *testing.T, newClient func(*testing.T, string) *listClient) {
	h, servers, spare, url := listedFace(t, nil)
	c := newClient(t, url)
	c.walk(false)
	page1 := c.page("", false)
	if page1.kind != "application/json" || page1.next == "" {
		t.Fatalf("first page answered as %s, next %q; want the relay's, with a cursor", page1.kind, page1.next)
	}
	servers["an"] = spare
	if res := h.Apply(context.Background(), servers); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	page2 := c.page(page1.next, false)
	if page2.kind != "text/event-stream" {
		t.Fatalf("the page after a change was answered as %s; want go-sdk's", page2.kind)
	}
	if sdk := c.page(page1.next, true); !bytes.Equal(page2.result, sdk.result) {
		t.Fatal("the page after a change differs from go-sdk's")
	}
	if !slices.Contains(page2.names, "an__echo") {
		t.Fatalf("the page after the cursor lacks the new tools after it: %v…", page2.names[:3])
	}
	walk := c.walk(false)
	again := c.walk(false)
	n := 0
	for i, pg := range again {
		if pg.kind != "application/json" || !bytes.Equal(pg.result, walk[i].result) {
			t.Fatalf("page %d of the new catalog: answered as %s, same as go-sdk's: %v", i, pg.kind, bytes.Equal(pg.result, walk[i].result))
		}
		n += len(pg.names)
	}
	if want := 2103 + len(BuiltinNames); n != want {
		t.Fatalf("the new catalog lists %d tools, want %d", n, want)
	}
}

// A catalog built again with the same tools (as a reload that changed
// nothing builds one) leaves the kept pages: the next walk is the relay's,
// byte for byte the walk before it, and go-sdk's own answer is the same.
func TestKeptPagesOutliveACatalogOfTheSameTools(t *testing.T) {
	for _, client := range listClients {
		t.Run(client.name, func(t *testing.T) {
			h, _, _, url := listedFace(t, nil)
			c := client.new(t, url)
			walk := c.walk(false)
			before := h.Catalog()
			h.Refresh()
			if h.Catalog() == before {
				t.Fatal("Refresh built no new catalog")
			}
			cursor := ""
			for i, pg := range c.walk(false) {
				if pg.kind != "application/json" || !bytes.Equal(pg.result, walk[i].result) {
					t.Fatalf("page %d after a catalog of the same tools: answered as %s, same as before: %v", i, pg.kind, bytes.Equal(pg.result, walk[i].result))
				}
				if sdk := c.page(cursor, true); !bytes.Equal(sdk.result, pg.result) {
					t.Fatalf("page %d: go-sdk now answers otherwise than the kept page", i)
				}
				cursor = pg.next
			}
		})
	}
}

// A kept page is answered through the face's receiving middleware (the
// daemon's tracing and users), as go-sdk's answer is.
func TestRelayListRunsTheMiddleware(t *testing.T) {
	var lists atomic.Int32
	count := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	}
	_, _, _, url := listedFace(t, nil, count)
	for _, client := range listClients {
		lists.Store(0)
		c := client.new(t, url)
		n := len(c.walk(false)) + len(c.walk(false))
		if last := c.page("", false); last.kind != "application/json" {
			t.Fatalf("%s: a kept page was answered as %s", client.name, last.kind)
		}
		if got := int(lists.Load()); got != n+1 {
			t.Fatalf("%s: the middleware saw %d lists, want %d", client.name, got, n+1)
		}
	}
}

// A session's kept pages and a stateless request's are kept apart: each
// kind of client gets go-sdk's page for its own kind (a 2026-07-28 result
// carries its result type and the server's info), whichever listed first.
func TestKeptPagesByRevision(t *testing.T) {
	_, _, _, url := listedFace(t, nil)
	session, stateless := newListClient(t, url), newStatelessListClient(t, url)
	session.walk(false)
	stateless.walk(false)
	for _, c := range []*listClient{session, stateless} {
		kept, sdk := c.page("", false), c.page("", true)
		if kept.kind != "application/json" || !bytes.Equal(kept.result, sdk.result) {
			t.Fatalf("stateless %v: kept page answered as %s, same as go-sdk's: %v", c.stateless, kept.kind, bytes.Equal(kept.result, sdk.result))
		}
		if typed := bytes.Contains(kept.result, []byte(`"resultType"`)); typed != c.stateless {
			t.Fatalf("stateless %v: the page has a result type: %v", c.stateless, typed)
		}
	}
}

// TestKeptPagesCountTheirCursors: the bound on the kept pages holds their
// cursors too. go-sdk accepts any encoded name as a cursor, so a client
// can send cursors of megabytes that each get an empty page.
func TestKeptPagesCountTheirCursors(t *testing.T) {
	var p listPages
	at := p.gen.Load()
	cursor := strings.Repeat("c", 1<<20)
	p.put(at, pageKey{cursor: cursor}, []byte(`{"tools":[]}`))
	if p.size < len(cursor) {
		t.Fatalf("a page kept under a %d-byte cursor counts %d bytes", len(cursor), p.size)
	}
	for i := range maxKeptPageBytes / len(cursor) {
		p.put(at, pageKey{cursor: fmt.Sprint(i, cursor)}, []byte(`{"tools":[]}`))
	}
	if p.size > maxKeptPageBytes {
		t.Fatalf("kept %d bytes, over the bound of %d", p.size, maxKeptPageBytes)
	}
}

// framedResult cuts the result from what go-sdk writes, and leaves
// anything else to the decode.
func TestFramedResult(t *testing.T) {
	jid, err := jsonrpc.MakeID(float64(7))
	if err != nil {
		t.Fatal(err)
	}
	sdk, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jid, Result: json.RawMessage(`{"tools":[{"name":"a"}],"nextCursor":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := jsonrpc.MakeID("7")
	for _, tc := range []struct {
		name string
		data string
		id   jsonrpc.ID
		want string // "": not framed
	}{
		{"go-sdk's response", string(sdk), jid, `{"tools":[{"name":"a"}],"nextCursor":"x"}`},
		{"another id", string(sdk), other, ""},
		{"an error besides", strings.TrimSuffix(string(sdk), "}") + `,"error":{"code":1,"message":"m"}}`, jid, ""},
		{"an error", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}`, jid, ""},
		{"not an object", `{"jsonrpc":"2.0","id":7,"result":[1]}`, jid, ""},
	} {
		got, ok := framedResult([]byte(tc.data), tc.id)
		if ok != (tc.want != "") || string(got) != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}
