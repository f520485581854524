package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk Streamable HTTP server answers a call on an event stream by
// default, and with one JSON body when JSONResponse is set: the raw path
// must hold for both.
var httpModes = []struct {
	name string
	opts *mcp.StreamableHTTPOptions
}{
	{"sse", nil},
	{"json", &mcp.StreamableHTTPOptions{JSONResponse: true}},
}

// rawTestServer is testServer with the result shapes the raw path reads:
// a tool error (isError) and a result without content.
func rawTestServer() *mcp.Server {
	s := testServer()
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{}, errors.New("it failed")
	})
	s.AddTool(&mcp.Tool{Name: "empty", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	return s
}

func dialHTTPMode(t *testing.T, srv *mcp.Server, opts *mcp.StreamableHTTPOptions) *Conn {
	t.Helper()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts))
	t.Cleanup(ts.Close)
	return dial(t, ts.URL, Options{})
}

// TestHTTPCallToolRawGivesWhatCallToolGives holds CallToolRaw on a
// Streamable HTTP upstream to CallTool's answer, encoded, for each result
// shape and for an upstream error.
func TestHTTPCallToolRawGivesWhatCallToolGives(t *testing.T) {
	for _, mode := range httpModes {
		c := dialHTTPMode(t, rawTestServer(), mode.opts)
		for _, tool := range []string{"echo", "fail", "empty", "ask", "missing"} {
			t.Run(mode.name+"/"+tool, func(t *testing.T) {
				ctx := context.Background()
				args := json.RawMessage(`{"text":"raw"}`)
				raw, rawErr := c.CallToolRaw(ctx, &fakePeer{}, tool, args, nil)
				typed, err := c.CallTool(ctx, &fakePeer{}, tool, args, nil)
				if (rawErr == nil) != (err == nil) || (err != nil && rawErr.Error() != err.Error()) {
					t.Fatalf("raw error %v, typed error %v", rawErr, err)
				}
				if err != nil {
					return
				}
				want, _ := encodeResult(typed)
				if string(raw.JSON) != string(want.JSON) || raw.IsError != want.IsError {
					t.Errorf("raw = %s (isError %v), want %s (%v)", raw.JSON, raw.IsError, want.JSON, want.IsError)
				}
			})
		}
	}
}

// TestHTTPCallToolRawRelaysProgressAndLogsBeforeTheResult: what the
// upstream sends on the call's stream before the result still reaches the
// peer, before CallToolRaw returns.
func TestHTTPCallToolRawRelaysProgressAndLogsBeforeTheResult(t *testing.T) {
	c := dialHTTPMode(t, rawTestServer(), nil)
	peer := &fakePeer{}
	raw, err := c.CallToolRaw(context.Background(), peer, "chatty", json.RawMessage(`{}`), mcp.Meta{"progressToken": "client-token"})
	if err != nil {
		t.Fatalf("chatty: %v", err)
	}
	if want := `"text":"done"`; !strings.Contains(string(raw.JSON), want) {
		t.Fatalf("chatty = %s, want it to hold %s", raw.JSON, want)
	}
	checkChattyRelayed(t, peer)
}

// TestHTTPCallToolRawCutByCloseFailsWithErrClosedInFlight: with and
// without a deadline (the call's own context is then the deadline's).
func TestHTTPCallToolRawCutByCloseFailsWithErrClosedInFlight(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration // zero: none
	}{{"no deadline", 0}, {"deadline", time.Hour}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits out its server's close
			release := make(chan struct{})
			url := serveHTTP(t, testServerReleasing(release), nil)
			t.Cleanup(func() { close(release) }) // runs before the server's Close
			c := dial(t, url, Options{})
			var deadline time.Time
			if tc.deadline > 0 {
				deadline = time.Now().Add(tc.deadline)
			}
			err := closeDuringCall(c, func() error {
				_, err := c.CallToolRawUntil(context.Background(), deadline, nil, "block", nil, nil)
				return err
			})
			if !errors.Is(err, ErrClosedInFlight) {
				t.Fatalf("raw call cut by Close: %v, want ErrClosedInFlight", err)
			}
		})
	}
}

// TestHTTPPostReadsResponsesAsGoSDKDoes: a posted call's response is
// read with go-sdk's own reading (the strict fast path of resultResponse
// or jsonrpc.DecodeMessage): the result and error go-sdk would give, and
// another call's response is not taken as this one's.
func TestHTTPPostReadsResponsesAsGoSDKDoes(t *testing.T) {
	c := &Conn{logger: quiet()}
	want, err := postCallID(1)
	if err != nil {
		t.Fatal(err)
	}
	id := `"` + rawIDPrefix + `1"`
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]},"Id":2}`,
		`{"jsonrpc":"2.0","ID":` + id + `,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]},"RESULT":{"content":[{"type":"text","text":"other"}]}}`,
		`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":7,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":"weft-raw-2","result":{"content":[]}}`,
	} {
		got, gotErr := c.handleMessage(context.Background(), nil, []byte(msg), want)
		sdk, sdkErr := jsonrpc.DecodeMessage([]byte(msg))
		resp, isResp := sdk.(*jsonrpc.Response)
		mine := sdkErr == nil && isResp && resp.ID == want.id
		if (gotErr != nil) != (sdkErr != nil) || (got != nil) != mine {
			t.Errorf("%s: answer %v, err %v; go-sdk reads %v, %v", msg, got, gotErr, sdk, sdkErr)
			continue
		}
		if !mine {
			continue
		}
		if string(got.result) != string(resp.Result) || (got.err == nil) != (resp.Error == nil) {
			t.Errorf("%s: result %s (err %v), go-sdk reads %s (err %v)", msg, got.result, got.err, resp.Result, resp.Error)
		}
	}
}
