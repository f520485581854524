package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// shapesFace serves a face with the test binary as a stdio upstream
// "shapes" (rawserver_test.go) and opens a go-sdk session pinned to
// 2025-11-25; it returns the face's URL and the session's id.
func shapesFace(t *testing.T) (string, string) {
	t.Helper()
	_, addr := shapesGateway(t)
	url := "http://" + addr + Endpoint
	return url, pinnedSession(t, url)
}

// postSession posts body as a request of the session and returns the
// response's status, Content-Type and body.
func postSession(url, session, body string) (int, string, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(sessionPost(ctx, url, session, body))
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.Split(resp.Header.Get("Content-Type"), ";")[0], data, err
}

// pinnedSession opens a go-sdk session pinned to 2025-11-25 on the face at
// url and returns its id.
func pinnedSession(t *testing.T, url string) string {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "raw-test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs.ID()
}

// shapesGateway serves a face with the stdio upstream "shapes"
// (rawserver_test.go) and returns it with its address.
func shapesGateway(t *testing.T) (*Gateway, string) {
	t.Helper()
	g, addr, _ := serveFace(t, HTTPOptions{})
	if res := g.hub.Apply(context.Background(), map[string]*config.Server{"shapes": shapesServer()}); len(res.Failed) > 0 {
		t.Fatalf("apply: %v", res.Failed)
	}
	return g, addr
}

// shapesServer is the config of the stdio upstream "shapes".
func shapesServer() *config.Server {
	return &config.Server{Name: "shapes", Type: config.TransportStdio, Target: os.Args[0],
		Env: map[string]string{"GATEWAY_TEST_RAW_SERVER": "1"}, TimeoutMS: 10_000}
}

// shapeTools are the tools of "shapes", each a kind of result.
var shapeTools = []string{"text", "structured", "fails", "empty", "meta", "named", "quotes", "refuses"}

// rawReply is a JSON-RPC response as the face wrote it.
type rawReply struct {
	kind   string // the response's Content-Type
	result json.RawMessage
	err    json.RawMessage
}

// postCall posts one tools/call of the session and returns the response.
func postCall(t *testing.T, url, session, body string) rawReply {
	t.Helper()
	_, kind, data, err := postSession(url, session, body)
	if err != nil {
		t.Fatal(err)
	}
	if kind == "text/event-stream" { // the response is the event that has an id
		for line := range strings.SplitSeq(string(data), "\n") {
			if msg, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(msg, `"id":`) {
				data = []byte(msg)
			}
		}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("response %q: %v", data, err)
	}
	return rawReply{kind: kind, result: env.Result, err: env.Error}
}

// TestRelayedRawResultsAreWhatGoSDKAnswers calls each tool of a stdio
// upstream twice in one session: through go-sdk's handler (a progress
// token sends the call there) and through the relay, whose result is the
// upstream's bytes. The two answers must be the same bytes.
func TestRelayedRawResultsAreWhatGoSDKAnswers(t *testing.T) {
	url, session := shapesFace(t)
	for i, tool := range shapeTools {
		name := "shapes__" + tool
		viaSDK := postCall(t, url, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"progressToken":"p"}}}`, 2*i+100, name))
		relayed := postCall(t, url, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, 2*i+101, name))
		if viaSDK.kind != "text/event-stream" || relayed.kind != "application/json" {
			t.Fatalf("%s: answered as %q and %q, want go-sdk's stream and the relay's JSON", tool, viaSDK.kind, relayed.kind)
		}
		if !bytes.Equal(viaSDK.result, relayed.result) || !bytes.Equal(viaSDK.err, relayed.err) {
			t.Errorf("%s:\n relayed result %s error %s\n go-sdk  result %s error %s", tool, relayed.result, relayed.err, viaSDK.result, viaSDK.err)
		}
		if tool == "empty" && !bytes.Contains(relayed.result, []byte(`"content":[]`)) {
			t.Errorf("empty: relayed %s, want an empty content list", relayed.result)
		}
		if tool == "refuses" && !bytes.Contains(relayed.err, []byte(`-32042`)) {
			t.Errorf("refuses: relayed error %s, want the upstream's code", relayed.err)
		}
	}
}

// TestStatelessRawResultsAreWhatGoSDKAnswers posts each tool's call as a
// 2026-07-28 request to the face, whose stateless relay splices the
// upstream's bytes, and to go-sdk's own stateless handler of the same
// server, which decodes and re-encodes them: the two answers must be the
// same bytes, a result with its own _meta (merged by go-sdk) included.
func TestStatelessRawResultsAreWhatGoSDKAnswers(t *testing.T) {
	g, addr := shapesGateway(t)
	sdk := serveSDKStateless(t, g)
	for _, tool := range shapeTools {
		name := "shapes__" + tool
		body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{` + rawMeta + `,"name":"` + name + `","arguments":{}}}`
		relayed := postRaw(t, "http://"+addr+Endpoint, body, name, nil)
		viaSDK := postRaw(t, sdk, body, name, nil)
		if relayed.kind != "application/json" {
			t.Fatalf("%s: answered as %s, want the relay's application/json", tool, relayed.kind)
		}
		if relayed.status != viaSDK.status || relayed.message != viaSDK.message {
			t.Errorf("%s:\n relayed %d %s\n go-sdk  %d %s", tool, relayed.status, relayed.message, viaSDK.status, viaSDK.message)
		}
	}
}

// TestStatelessRawSplicesOnlyWhatItCan: the splice takes a result without
// _meta or input requests and leaves the rest to the typed path.
func TestStatelessRawSplicesOnlyWhatItCan(t *testing.T) {
	g := &Gateway{infoJSON: []byte(`{"name":"weft","version":"v"}`)}
	for _, c := range []struct{ raw, want string }{
		{`{"content":[{"type":"text","text":"hi"}]}`,
			`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weft","version":"v"}},"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`},
		{` {"content":[],"isError":true} `,
			`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"weft","version":"v"}},"content":[],"isError":true,"resultType":"complete"}`},
		{`{"_meta":{"a":1},"content":[]}`, ""},
		{`{"content":[],"_META":{"a":1}}`, ""},
		{`{"content":[],"inputRequests":{}}`, ""},
		{`{"content":[],"resultType":"complete"}`, ""},
		{`{"content":[{"type":"text","text":"x","_meta":{}}]}`, ""},
		{`{}`, ""},
		{`[]`, ""},
	} {
		got, ok := g.statelessRaw(json.RawMessage(c.raw))
		if ok != (c.want != "") || string(got) != c.want {
			t.Errorf("statelessRaw(%s) = %s, %v; want %q", c.raw, got, ok, c.want)
		}
	}
}
