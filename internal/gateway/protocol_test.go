package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/hub"
)

// wireReply is the part of a JSON-RPC response the tests look at.
type wireReply struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// TestUnsafeIDsAreRefused sends ids the SDK would answer with a different
// value; each is refused with -32600, and safe ones still work.
func TestUnsafeIDsAreRefused(t *testing.T) {
	_, addr, _ := serveFace(t, HTTPOptions{})
	init := func(id string) string {
		return strings.Replace(initBody, `"id":1`, `"id":`+id, 1)
	}
	for _, id := range []string{"1.5", "1e3", "9223372036854775808", "9007199254740993", "-9007199254740993", "true", "{}"} {
		res, c := rawRequest(t, addr, post(addr, "", init(id)))
		c.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("id %s: status %d, want 400", id, res.StatusCode)
		}
	}
	for _, id := range []string{"0", "9007199254740991", "-3", `"abc"`} {
		res, c := rawRequest(t, addr, post(addr, "", init(id)))
		c.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("id %s: status %d, want 200", id, res.StatusCode)
		}
	}
	body := refusedBody(t, addr, post(addr, "", init("1.5")))
	if body.Error == nil || body.Error.Code != jsonrpc.CodeInvalidRequest || string(body.ID) != "null" {
		t.Fatalf("refusal of id 1.5: %+v, want code -32600 and id null", body)
	}
}

// refusedBody sends req and decodes the JSON-RPC error in the answer.
func refusedBody(t *testing.T, addr, req string) wireReply {
	t.Helper()
	c := dial(t, addr)
	defer c.Close()
	_, _ = io.WriteString(c, req)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r wireReply
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		t.Fatalf("status %d, body is not JSON-RPC: %v", res.StatusCode, err)
	}
	return r
}

// TestRequestWithoutSessionGets400: after initialization, a request that
// lacks Mcp-Session-Id is answered 400 with -32600 and its own id.
func TestRequestWithoutSessionGets400(t *testing.T) {
	_, addr, _ := serveFace(t, HTTPOptions{})
	res, c := rawRequest(t, addr, post(addr, "", initBody))
	c.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get(sessionHeader) == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, res.Header.Get(sessionHeader))
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	r := refusedBody(t, addr, post(addr, "", list))
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || string(r.ID) != "7" || !strings.Contains(r.Error.Message, "Mcp-Session-Id") {
		t.Fatalf("tools/list without a session: %+v, want -32600 with id 7 naming Mcp-Session-Id", r)
	}
	res, c = rawRequest(t, addr, post(addr, "", list))
	c.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", res.StatusCode)
	}
}

// TestCompletionOfUnknownReference answers -32602, not code 0.
func TestCompletionOfUnknownReference(t *testing.T) {
	ctx := context.Background()
	cs := emptyFace(t)
	for _, ref := range []*mcp.CompleteReference{{Type: "ref/prompt", Name: "nope__p"}, {Type: "ref/resource", URI: "nope://x"}} {
		_, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: "a", Value: "b"}})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("complete %+v: %v, want code -32602", ref, err)
		}
	}
}

// TestStdioAnswersMalformedLinesAndKeepsTheSession writes hostile lines to
// the stdio face: each gets its JSON-RPC error, and a proper initialize
// afterwards is still answered.
func TestStdioAnswersMalformedLinesAndKeepsTheSession(t *testing.T) {
	h := hub.New(hub.Options{Reserved: BuiltinNames})
	defer h.Close(context.Background())
	g := New(h, Options{Version: "test"})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.serveIO(ctx, inR, outW, 20_000) }()
	defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
	replies := bufio.NewScanner(outR)
	replies.Buffer(nil, 1<<20)
	cases := []struct {
		name string
		line string
		code int64
	}{
		{"garbage", "hello, weft", jsonrpc.CodeParseError},
		{"batch", "[" + initBody + "]", jsonrpc.CodeInvalidRequest},
		{"not an object", `42`, jsonrpc.CodeInvalidRequest},
		{"over-long", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 30_000) + `"}}`, jsonrpc.CodeInvalidRequest},
		{"too deep", strings.Repeat(`{"a":`, maxDepth+5) + "1" + strings.Repeat("}", maxDepth+5), jsonrpc.CodeInvalidRequest},
		{"fractional id", strings.Replace(initBody, `"id":1`, `"id":1.5`, 1), jsonrpc.CodeInvalidRequest},
	}
	for _, tc := range cases {
		if _, err := fmt.Fprintln(inW, tc.line); err != nil {
			t.Fatal(err)
		}
		if !replies.Scan() {
			t.Fatalf("%s: no reply (%v)", tc.name, replies.Err())
		}
		var r wireReply
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil || r.Error == nil || r.Error.Code != tc.code {
			t.Fatalf("%s: reply %s, want error code %d", tc.name, replies.Bytes(), tc.code)
		}
	}
	if _, err := fmt.Fprintln(inW, initBody); err != nil {
		t.Fatal(err)
	}
	if !replies.Scan() {
		t.Fatalf("initialize after refusals: no reply (%v)", replies.Err())
	}
	var r wireReply
	if err := json.Unmarshal(replies.Bytes(), &r); err != nil || r.Error != nil || string(r.ID) != "1" || len(r.Result) == 0 {
		t.Fatalf("initialize after refusals: %s", replies.Bytes())
	}
}
