package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// listResponses are responses to weft's tools/list, valid and not, for
// resultOfList's checks.
var listResponses = []string{
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`,
	` { "result" : {"tools":[]} , "id" : 7 , "jsonrpc" : "2.0" } `,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c"}}`,
	// Invalid or cut inside the result, the envelope whole.
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b\x01"}]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":}]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"]},{"name":"b"}]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]]}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"na`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"type":"obj`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[]}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":tru}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{"p":` + strings.Repeat("[", 995) + strings.Repeat("]", 995) + `}}]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[{"name":"a","inputSchema":{},"_meta":{"p":` + strings.Repeat("[", 995) + strings.Repeat("]", 995) + `}}]}}`,
	// Invalid or unread outside it.
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[]}} x`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[]},}`,
	`{"jsonrpc":"2.0","id":weft,"result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[]},"result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","ID":"weft-raw-1","result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","\u0069d":"weft-raw-1","result":{"tools":[]}}`,
	`{"jsonrpc":"1.0","id":"weft-raw-1","result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","result":{"tools":[]}}`,
	`{"jsonrpc":"2.0","id":"weft-raw-1","error":{"code":1,"message":"no"}}`,
	`[{"jsonrpc":"2.0","id":"weft-raw-1","result":{"tools":[]}}]`,
}

// TestResultOfListReadsNoPageResultResponseRefuses: a page the raw list
// reads from resultOfList's result is one resultResponse (json.Valid and
// the depth check included) reads the same, so the unchecked result never
// gives a half-read list; a valid page is taken on the fast path.
func TestResultOfListReadsNoPageResultResponseRefuses(t *testing.T) {
	read := 0
	for _, msg := range listResponses {
		if checkResultOfList(t, []byte(msg)) {
			read++
		}
	}
	if read != 3 {
		t.Errorf("the raw list read %d of the responses, want the 3 valid ones", read)
	}
}

// FuzzResultOfList holds resultOfList and the page's read to
// resultResponse on any message.
func FuzzResultOfList(f *testing.F) {
	for _, msg := range listResponses {
		f.Add([]byte(msg))
	}
	f.Fuzz(func(t *testing.T, msg []byte) { checkResultOfList(t, msg) })
}

// checkResultOfList reports whether the raw list reads msg's page, and
// fails t unless resultResponse reads msg as valid with the same id and
// result.
func checkResultOfList(t *testing.T, msg []byte) bool {
	t.Helper()
	id, result, ok := resultOfList(msg)
	if !ok {
		return false
	}
	var tools []*mcp.Tool
	pg := toolPage{schemas: map[string]json.RawMessage{}}
	if _, read := pg.read(result, &tools); !read {
		return false
	}
	wantID, wantResult, want := resultResponse(msg)
	if !want || !json.Valid(msg) || !bytes.Equal(id, wantID) || !bytes.Equal(result, wantResult) {
		t.Fatalf("%q: read id %s, result %s; resultResponse gives %v: %s, %s", msg, id, result, want, wantID, wantResult)
	}
	return true
}

// TestRawListOfABrokenPageEndsInGoSDKsList: an upstream whose answer to
// weft's own tools/list is broken in its second page (go-sdk's requests
// are answered whole) is listed through go-sdk, every tool, when the
// break is inside the result; a broken envelope fails the connection as
// go-sdk's would. None of the first page's tools is ever listed alone.
func TestRawListOfABrokenPageEndsInGoSDKsList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(body []byte) []byte
		sdk     bool // the list falls back to go-sdk, which lists every tool
	}{
		{"bad byte in the result", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"plain"`), []byte("\"name\":\"pl\x01ain\""), 1)
		}, true},
		{"bad value in the result", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"plain"`), []byte(`"name":plain`), 1)
		}, true},
		{"brackets crossed", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"plain"`), []byte(`"name":]}`), 1)
		}, false},
		{"body cut short", func(b []byte) []byte {
			if i := bytes.Index(b, []byte(`"name":"plain"`)); i >= 0 {
				return b[:i]
			}
			return b
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var broken atomic.Int32
			ts := httptest.NewServer(rewriteLists(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return listServer("") },
				&mcp.StreamableHTTPOptions{JSONResponse: true}), true, func(b []byte) []byte {
				if out := tc.corrupt(b); !bytes.Equal(out, b) {
					broken.Add(1)
					return out
				}
				return b
			}))
			t.Cleanup(ts.Close)
			c, err := Dial(context.Background(), &config.Server{Name: "s", Type: config.TransportHTTP, Target: ts.URL, TimeoutMS: 5000}, Options{Logger: quiet()})
			if broken.Load() != 1 {
				t.Fatalf("%d of weft's pages were broken, want 1", broken.Load())
			}
			if !tc.sdk {
				if err == nil {
					c.Close(context.Background())
					t.Fatal("dial listed the tools of a broken response, want the connection's error")
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v, want the list through go-sdk", err)
			}
			t.Cleanup(func() { c.Close(context.Background()) })
			checkListedAsGoSDK(t, c, c.Inventory().Tools)
		})
	}
}

// rewriteLists has h answer tools/list requests (weft's own only, when
// own is set) with the body rewritten by fn; every other request is
// answered as h answers it.
func rewriteLists(h http.Handler, own bool, fn func([]byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s := string(body)
		if !strings.Contains(s, `"tools/list"`) || own && !strings.Contains(s, `"`+rawIDPrefix) {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(fn(rec.Body.Bytes()))
	})
}

// TestRawListOfADeepSchemaGivesGoSDKsList: a page nesting deeper than
// go-sdk reads, for one tool's schema, lists as go-sdk's path lists it:
// that schema replaced by the refusal marker, every other tool as it is.
func TestRawListOfADeepSchemaGivesGoSDKsList(t *testing.T) {
	deep := strings.Repeat(`{"a":`, messageDepthLimit) + "1" + strings.Repeat("}", messageDepthLimit)
	for _, mode := range httpModes {
		t.Run(mode.name, func(t *testing.T) {
			s := listServer("")
			// go-sdk's server refuses such a schema: the page is made deep
			// on the wire.
			s.AddTool(&mcp.Tool{Name: "deep", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":"DEEP"}}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
			ts := httptest.NewServer(rewriteLists(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, mode.opts), false,
				func(b []byte) []byte { return bytes.Replace(b, []byte(`"DEEP"`), []byte(deep), 1) }))
			t.Cleanup(ts.Close)
			c := dial(t, ts.URL, Options{})
			got, err := c.listTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			checkListedAsGoSDK(t, c, got)
			refused := false
			for _, tool := range got {
				if tool.Name == "deep" {
					s, _ := tool.InputSchema.(json.RawMessage)
					refused = bytes.Contains(s, []byte(refusedKey))
				}
			}
			if !refused {
				t.Errorf("the deep schema was listed without the refusal marker")
			}
		})
	}
}
