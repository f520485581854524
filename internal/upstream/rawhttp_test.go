package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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

// TestHTTPStreamGivesTheResultRaw: a call marked for the raw path ends in
// go-sdk with the stand-in error, and the result kept is what go-sdk's
// typed result encodes to.
func TestHTTPStreamGivesTheResultRaw(t *testing.T) {
	for _, mode := range httpModes {
		t.Run(mode.name, func(t *testing.T) {
			c := dialHTTPMode(t, rawTestServer(), mode.opts)
			args := json.RawMessage(`{"text":"raw"}`)
			h := &httpRaw{}
			_, err := c.CallTool(context.WithValue(context.Background(), httpRawKey{}, h), &fakePeer{}, "echo", args, nil)
			var stand *jsonrpc.Error
			if !errors.As(err, &stand) || stand.Code != rawTakenCode || !h.taken.Load() {
				t.Fatalf("marked call: err %v, taken %v; want the stand-in and the result kept", err, h.taken.Load())
			}
			typed, err := c.CallTool(context.Background(), &fakePeer{}, "echo", args, nil)
			if err != nil {
				t.Fatalf("typed echo: %v", err)
			}
			want, _ := encodeResult(typed)
			if string(h.result) != string(want.JSON) {
				t.Errorf("kept %s, want %s", h.result, want.JSON)
			}
		})
	}
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

func TestHTTPCallToolRawCutByCloseFailsWithErrClosedInFlight(t *testing.T) {
	release := make(chan struct{})
	url := serveHTTP(t, testServerReleasing(release), nil)
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	c := dial(t, url, Options{})
	err := closeDuringCall(c, func() error {
		_, err := c.CallToolRaw(context.Background(), nil, "block", nil, nil)
		return err
	})
	if !errors.Is(err, ErrClosedInFlight) {
		t.Fatalf("raw call cut by Close: %v, want ErrClosedInFlight", err)
	}
}

// TestHTTPRawTakesOnlyPlainResults: the stream reader leaves every message
// but a response with a plain result to go-sdk, and takes one result only.
func TestHTTPRawTakesOnlyPlainResults(t *testing.T) {
	tests := []struct {
		line string
		take bool
	}{
		{`data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"a"}]}}`, true},
		{`data:{"jsonrpc":"2.0","id":"x","result":{"content":[],"isError":true}}`, true},
		{`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"\"result\""}}`, false},
		{`data: {"jsonrpc":"2.0","id":4,"method":"roots/list","params":{"result":1}}`, false},
		{`data: {"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"\"result\""}}`, false},
		{`data: {"jsonrpc":"2.0","id":3,"result":{}}`, false},
		{`data: {"jsonrpc":"2.0","id":3,"result":{"content":[],"inputRequests":{"a":{}}}}`, false},
		{`data: {"jsonrpc":"2.0","id":3,"result":{"content":[`, false},
		{`id: 7`, false},
	}
	for _, tt := range tests {
		h := &httpRaw{id: []byte("3")}
		if strings.Contains(tt.line, `"id":"x"`) {
			h.id = []byte(`"x"`)
		}
		got := string(h.line([]byte(tt.line + "\n")))
		if took := got != tt.line+"\n"; took != tt.take || h.taken.Load() != tt.take {
			t.Errorf("line(%s) = %s, want taken %v", tt.line, got, tt.take)
		}
		if tt.take && !strings.Contains(got, `"error":{"code":-32099`) {
			t.Errorf("line(%s) = %s, want the stand-in", tt.line, got)
		}
		again := `data: {"jsonrpc":"2.0","id":9,"result":{"content":[]}}` + "\n"
		if tt.take && string(h.line([]byte(again))) != again {
			t.Errorf("a second result after %s was taken too", tt.line)
		}
	}
}

// TestHTTPRawTakesOnlyAnEventsFirstDataLine: an event may spread its
// message over several data lines, which the reader joins. A later line
// that is a whole response by itself (here an item of structuredContent)
// is part of the message, not one: replacing it by the stand-in would
// corrupt the result go-sdk decodes. The next event's result is taken.
func TestHTTPRawTakesOnlyAnEventsFirstDataLine(t *testing.T) {
	split := []string{
		`data: {"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"items":[`,
		`data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		`data: ]}}}`,
		"",
	}
	h := &httpRaw{id: []byte("1")}
	for _, line := range split {
		if got := string(h.line([]byte(line + "\n"))); got != line+"\n" {
			t.Errorf("line(%s) = %s, want it passed as it is", line, got)
		}
	}
	if h.taken.Load() {
		t.Fatal("a line inside a split message was taken as the result")
	}
	next := `data: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}` + "\n"
	if got := string(h.line([]byte(next))); got == next || !h.taken.Load() {
		t.Errorf("the next event's result was not taken: %s", got)
	}
}

// TestHTTPRawReadsKeysAsGoSDKDoes: go-sdk matches a message's keys exactly
// (its decoder does not fold case), encoding/json's struct fields ignore
// case. A message the raw path takes must give the result and the id
// go-sdk would read in it, or a stand-in answers a call with another id
// (which then fails with it) while the real one waits in vain.
func TestHTTPRawReadsKeysAsGoSDKDoes(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"Id":2}`,
		`{"jsonrpc":"2.0","ID":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]},"RESULT":{"content":[{"type":"text","text":"other"}]}}`,
		`{"jsonrpc":"2.0","id":null,"result":{"content":[]}}`,
		`{"id":1,"result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	} {
		h := &httpRaw{id: []byte("1")}
		stand := h.body([]byte(msg))
		want, err := jsonrpc.DecodeMessage([]byte(msg))
		resp, isResp := want.(*jsonrpc.Response)
		if !h.taken.Load() {
			continue
		}
		if err != nil || !isResp || resp.Error != nil {
			t.Errorf("took %s, which go-sdk reads as no result (%v)", msg, err)
			continue
		}
		if string(h.result) != string(resp.Result) {
			t.Errorf("took %s as result %s, go-sdk reads %s", msg, h.result, resp.Result)
		}
		got, err := jsonrpc.DecodeMessage(stand)
		if r, ok := got.(*jsonrpc.Response); err != nil || !ok || r.ID != resp.ID {
			t.Errorf("stand-in %s for %s: id %v, go-sdk reads id %v", stand, msg, got, resp.ID)
		}
	}
}

// TestHTTPRawTakesOnlyItsOwnCallsResponse: a server may write another
// call's response on this call's stream (go-sdk routes responses by id, so
// it copes). Taking it would answer that other call with the stand-in,
// which then fails with it, and lose its result.
func TestHTTPRawTakesOnlyItsOwnCallsResponse(t *testing.T) {
	h := &httpRaw{}
	ctx := context.WithValue(context.Background(), httpRawKey{}, h)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://upstream.test/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}}
	claimed := claimHTTPRaw(req, resp)
	if claimed != h {
		t.Fatal("the call's response stream was not claimed")
	}
	other := `data: {"jsonrpc":"2.0","id":8,"result":{"content":[]}}` + "\n"
	if got := string(claimed.line([]byte(other))); got != other || h.taken.Load() {
		t.Errorf("another call's response was taken: %s", got)
	}
	claimed.line([]byte("\n"))
	own := `data: {"jsonrpc":"2.0","id":7,"result":{"content":[]}}` + "\n"
	if got := string(claimed.line([]byte(own))); got == own || !h.taken.Load() {
		t.Errorf("the call's own response was not taken: %s", got)
	}
}
