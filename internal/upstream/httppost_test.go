package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// postLog records the requests a test server got, by method and body.
type postLog struct {
	mu   sync.Mutex
	reqs []seenRequest
}

type seenRequest struct {
	method string
	header http.Header
	body   string
}

func (l *postLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		l.mu.Lock()
		l.reqs = append(l.reqs, seenRequest{r.Method, r.Header.Clone(), string(body)})
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

// find is the first request whose body holds all of parts.
func (l *postLog) find(parts ...string) (seenRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.reqs {
		if all(r.body, parts) {
			return r, true
		}
	}
	return seenRequest{}, false
}

func all(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// postTestServer is rawTestServer with tools that send the server's own
// requests and drop their stream during the call.
func postTestServer() *mcp.Server {
	s := rawTestServer()
	mcp.AddTool(s, &mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "sampling"})
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, echoOut{}, err
		}
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, echoOut{}, err
		}
		return nil, echoOut{Text: "model " + res.Model}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "drop"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "before the drop"})
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
		return nil, echoOut{Text: "after the drop"}, nil
	})
	return s
}

// TestHTTPCallToolRawIsPostedByWeft: the relayed call is weft's own POST
// (its string id, which go-sdk never uses), with the session's headers,
// in both response modes.
func TestHTTPCallToolRawIsPostedByWeft(t *testing.T) {
	for _, mode := range httpModes {
		t.Run(mode.name, func(t *testing.T) {
			var seen postLog
			url := serveHTTPOpts(t, postTestServer(), mode.opts, seen.wrap)
			c := dial(t, url, Options{})
			raw, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{"text":"posted"}`), nil)
			if err != nil || !strings.Contains(string(raw.JSON), "echo:posted") {
				t.Fatalf("echo = %s, %v", raw.JSON, err)
			}
			r, ok := seen.find(`"method":"tools/call"`, `"id":"`+rawIDPrefix)
			if !ok {
				t.Fatalf("no tools/call with weft's id reached the server")
			}
			want := map[string]string{
				"Mcp-Session-Id":       c.session.ID(),
				"Mcp-Protocol-Version": c.info.ProtocolVersion,
				"Accept":               "application/json, text/event-stream",
				"Content-Type":         "application/json",
			}
			for k, v := range want {
				if got := r.header.Get(k); got != v || v == "" {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestHTTPPostedCallAnswersTheServersRequests: a log, a ping and a
// sampling request sent during the call reach weft's handlers; the answers
// go back with the session's id, and the call then ends with its result.
func TestHTTPPostedCallAnswersTheServersRequests(t *testing.T) {
	var seen postLog
	url := serveHTTPOpts(t, postTestServer(), nil, seen.wrap)
	c := dial(t, url, Options{})
	peer := &samplingPeer{}
	raw, err := c.CallToolRaw(context.Background(), peer, "sample", json.RawMessage(`{}`), nil)
	if err != nil || !strings.Contains(string(raw.JSON), "model m") {
		t.Fatalf("sample = %s, %v; want the peer's model in it", raw.JSON, err)
	}
	peer.mu.Lock()
	logs := peer.logs
	peer.mu.Unlock()
	if len(logs) != 1 || logs[0] != "sampling" {
		t.Errorf("logs relayed = %q, want [sampling]", logs)
	}
	r, ok := seen.find(`"result":{`, `"model":"m"`)
	if !ok {
		t.Fatal("the sampling answer was not posted back")
	}
	if r.header.Get("Mcp-Session-Id") != c.session.ID() {
		t.Errorf("sampling answer posted with session %q, want %q", r.header.Get("Mcp-Session-Id"), c.session.ID())
	}
}

// TestHTTPPostedCallResumesADroppedStream: a server that closes the call's
// stream (with event ids) has the call resumed by a GET with Last-Event-ID,
// as go-sdk resumes it, and the call ends with its result.
func TestHTTPPostedCallResumesADroppedStream(t *testing.T) {
	var seen postLog
	opts := &mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)}
	url := serveHTTPOpts(t, postTestServer(), opts, seen.wrap)
	c := dial(t, url, Options{})
	peer := &fakePeer{}
	raw, err := c.CallToolRaw(context.Background(), peer, "drop", json.RawMessage(`{}`), nil)
	if err != nil || !strings.Contains(string(raw.JSON), "after the drop") {
		t.Fatalf("drop = %s, %v; want the result after the resumption", raw.JSON, err)
	}
	seen.mu.Lock()
	resumed := false
	for _, r := range seen.reqs {
		resumed = resumed || (r.method == http.MethodGet && r.header.Get("Last-Event-ID") != "")
	}
	seen.mu.Unlock()
	if !resumed {
		t.Error("no GET with Last-Event-ID resumed the stream")
	}
}

// TestHTTPPostedCallWithoutEventIDsEndsAsGoSDK: a stream that ends before
// the response and without event ids ends the call with go-sdk's error.
func TestHTTPPostedCallWithoutEventIDsEndsAsGoSDK(t *testing.T) {
	cut := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/call"`)) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, ": a comment\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	c := dial(t, serveHTTPOpts(t, postTestServer(), nil, cut), Options{})
	_, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
	if !errors.Is(err, errNoResponse) {
		t.Fatalf("err = %v, want %v", err, errNoResponse)
	}
}

// TestHTTPPostedCallRefusedEndsTheSession: a 404 for the session fails
// the call with go-sdk's ErrSessionMissing, another refusal with its status;
// both end the session, so that the hub reconnects, as go-sdk's own call
// would (its connection fails on them).
func TestHTTPPostedCallRefusedEndsTheSession(t *testing.T) {
	for _, tt := range []struct {
		status int
		want   func(error) bool
	}{
		{http.StatusNotFound, func(err error) bool { return errors.Is(err, mcp.ErrSessionMissing) }},
		{http.StatusInternalServerError, func(err error) bool {
			return err != nil && strings.Contains(err.Error(), "Internal Server Error")
		}},
	} {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			var refuse atomic.Bool
			refusing := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if refuse.Load() && r.Header.Get("Mcp-Session-Id") != "" && r.Method == http.MethodPost {
						http.Error(w, "refused", tt.status)
						return
					}
					next.ServeHTTP(w, r)
				})
			}
			closed := make(chan error, 1)
			c := dial(t, serveHTTPOpts(t, postTestServer(), nil, refusing), Options{OnClosed: func(_ *Conn, err error) { closed <- err }})
			refuse.Store(true)
			_, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
			if !tt.want(err) {
				t.Fatalf("err = %v", err)
			}
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the session did not end after the refusal")
			}
		})
	}
}

// TestHTTPPostedCallCancelledTellsTheServer: a call whose ctx ends returns
// ctx's error and sends notifications/cancelled for its id, as go-sdk does.
func TestHTTPPostedCallCancelledTellsTheServer(t *testing.T) {
	release := make(chan struct{})
	cancelled := make(chan string, 1)
	watch := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
				select {
				case cancelled <- string(body):
				default:
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	url := serveHTTPOpts(t, testServerReleasing(release), nil, watch)
	t.Cleanup(func() { close(release) })
	c := dial(t, url, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.CallToolRaw(ctx, &fakePeer{}, "block", json.RawMessage(`{}`), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	select {
	case body := <-cancelled:
		if !strings.Contains(body, `"requestId":"`+rawIDPrefix) {
			t.Errorf("notifications/cancelled = %s, want weft's id in it", body)
		}
	case <-time.After(10 * time.Second):
		t.Error("no notifications/cancelled reached the server")
	}
}

// TestSSEEvents reads events as go-sdk does: comments skipped, data lines
// joined, id and retry kept, and the last event taken when the stream's
// end finishes it (with or without a line end), as go-sdk takes it.
func TestSSEEvents(t *testing.T) {
	c := &Conn{}
	for _, end := range []string{"data: last", "data: last\n"} {
		stream := ": hello\n\nid: 7\nretry: 10\n\nevent: other\ndata: x\n\ndata: {\"a\":\ndata: 1}\r\n\r\n" + end
		r := bufio.NewReader(strings.NewReader(stream))
		want := []sseEvent{{id: "7", retry: "10"}, {name: "other", data: []byte("x")}, {data: []byte("{\"a\":\n1}")}, {data: []byte("last")}}
		for i, w := range want {
			got, err := c.nextEvent(r)
			if err != nil || got.id != w.id || got.retry != w.retry || got.name != w.name || string(got.data) != string(w.data) {
				t.Fatalf("%q: event %d = %+v, %v; want %+v", end, i, got, err, w)
			}
		}
		if _, err := c.nextEvent(r); !errors.Is(err, io.EOF) {
			t.Errorf("%q: after the last event: %v, want EOF", end, err)
		}
	}
}

// TestSSELongLineCopiedOnce: a line longer than the reader's buffer is
// gathered by appending, not by copying what was gathered again for each
// buffer (quadratic in the line: seconds for a result of a few MiB).
func TestSSELongLineCopiedOnce(t *testing.T) {
	c := &Conn{}
	stream := "data: " + strings.Repeat("x", 1<<20) + "\n\n"
	allocs := testing.AllocsPerRun(3, func() {
		if evt, err := c.nextEvent(bufio.NewReaderSize(strings.NewReader(stream), 4096)); err != nil || len(evt.data) != 1<<20 {
			t.Fatalf("event of %d bytes, %v", len(evt.data), err)
		}
	})
	if allocs > 100 {
		t.Errorf("reading a 1 MiB line took %.0f allocations, want a few dozen", allocs)
	}
}

// TestHTTPPostedCallTakesTheResponseTheStreamEnds: a response event that
// the end of the stream finishes (no blank line after it) is the call's
// response, as go-sdk reads it.
func TestHTTPPostedCallTakesTheResponseTheStreamEnds(t *testing.T) {
	cut := toolCallsAnswered(func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"unterminated"}]}}`+"\n")
	})
	c := dial(t, serveHTTPOpts(t, postTestServer(), nil, cut), Options{})
	raw, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
	if err != nil || !strings.Contains(string(raw.JSON), "unterminated") {
		t.Fatalf("echo = %s, %v; want the response the stream's end finished", raw.JSON, err)
	}
}

// samplingPeer answers sampling with content, as a server requires.
type samplingPeer struct{ fakePeer }

func (p *samplingPeer) CreateMessage(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return &mcp.CreateMessageWithToolsResult{Model: "m", Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
}

// serveHTTPOpts is serveHTTP with handler options.
func serveHTTPOpts(t *testing.T, srv *mcp.Server, opts *mcp.StreamableHTTPOptions, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	ts := httptest.NewServer(wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestHTTPPostedCallRelaysToItsOwnClient: the log, sampling and roots
// requests sent on a posted call's stream reach the client of that call,
// never another client's call in flight, however new.
func TestHTTPPostedCallRelaysToItsOwnClient(t *testing.T) {
	gate, hold := make(chan struct{}), make(chan struct{})
	started := make(chan struct{}, 2)
	s := postTestServer()
	mcp.AddTool(s, &mcp.Tool{Name: "gated"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		started <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, echoOut{}, ctx.Err()
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "for a"})
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, echoOut{}, err
		}
		roots, err := req.Session.ListRoots(ctx, nil)
		if err != nil || len(roots.Roots) == 0 {
			return nil, echoOut{}, fmt.Errorf("roots: %v", err)
		}
		return nil, echoOut{Text: "model " + res.Model + " root " + roots.Roots[0].URI}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		started <- struct{}{}
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return nil, echoOut{Text: "held"}, nil
	})
	c := dial(t, serveHTTPOpts(t, s, nil, func(h http.Handler) http.Handler { return h }), Options{})
	a, b := &ownPeer{name: "a"}, &ownPeer{name: "b"}
	type result struct {
		raw RawResult
		err error
	}
	call := func(peer Peer, tool string) chan result {
		ch := make(chan result, 1)
		go func() {
			raw, err := c.CallToolRaw(context.Background(), peer, tool, json.RawMessage(`{}`), nil)
			ch <- result{raw, err}
		}()
		return ch
	}
	resA := call(a, "gated")
	<-started
	resB := call(b, "hold") // the newest call in flight from now on
	<-started
	close(gate)
	got := <-resA
	close(hold)
	if r := <-resB; r.err != nil {
		t.Fatalf("hold: %v", r.err)
	}
	if got.err != nil || !strings.Contains(string(got.raw.JSON), "model a root file:///a") {
		t.Errorf("gated = %s, %v; want client a's model and root", got.raw.JSON, got.err)
	}
	a.mu.Lock()
	b.mu.Lock()
	defer a.mu.Unlock()
	defer b.mu.Unlock()
	if len(a.logs) != 1 || len(b.logs) != 0 {
		t.Errorf("logs: a got %q, b got %q; want the message for a alone", a.logs, b.logs)
	}
}

// TestHTTPPostedCallCancelledEndsItsPendingRequest: a call cancelled while
// the server's sampling request waits on its client ends at once, and the
// client's request is cancelled with it, instead of holding the call's
// stream until the client answers.
func TestHTTPPostedCallCancelledEndsItsPendingRequest(t *testing.T) {
	told := make(chan struct{}, 1)
	watch := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
			if bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
				select {
				case told <- struct{}{}:
				default:
				}
			}
		})
	}
	c := dial(t, serveHTTPOpts(t, postTestServer(), nil, watch), Options{})
	peer := &waitingPeer{asked: make(chan struct{}), cancelled: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.CallToolRaw(ctx, peer, "sample", json.RawMessage(`{}`), nil)
		done <- err
	}()
	<-peer.asked
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call still waits on its client's answer")
	}
	select {
	case <-peer.cancelled:
	default:
		t.Error("the client's sampling request was not cancelled with the call")
	}
	select { // the server's tool ends only once told
	case <-told:
	case <-time.After(10 * time.Second):
		t.Error("the upstream was not told of the cancellation")
	}
}

// ownPeer answers sampling and roots with its own name.
type ownPeer struct {
	fakePeer
	name string
}

func (p *ownPeer) CreateMessage(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	return &mcp.CreateMessageWithToolsResult{Model: p.name, Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
}

func (p *ownPeer) ListRoots(context.Context, *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///" + p.name}}}, nil
}

// waitingPeer's client never answers sampling; it notes the request and
// its cancellation.
type waitingPeer struct {
	fakePeer
	asked, cancelled chan struct{}
}

func (p *waitingPeer) CreateMessage(ctx context.Context, _ *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	close(p.asked)
	<-ctx.Done()
	close(p.cancelled)
	return nil, ctx.Err()
}

// TestHTTPPostedCallCancelledReturnsAtOnce: a cancelled call returns
// without waiting on its notifications/cancelled POST, which go-sdk sends
// off the caller's return path (a slow upstream must not hold the caller
// past its own deadline).
func TestHTTPPostedCallCancelledReturnsAtOnce(t *testing.T) {
	release := make(chan struct{})
	got := make(chan bool, 1) // the held cancel POST: true when released before weft gave up on it
	holding := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
				released := false
				select {
				case <-release:
					released = true
				case <-r.Context().Done():
				}
				select {
				case got <- released:
				default:
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	hold := make(chan struct{})
	defer close(hold)
	c := dial(t, serveHTTPOpts(t, testServerReleasing(hold), nil, holding), Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := c.CallToolRaw(ctx, &fakePeer{}, "block", json.RawMessage(`{}`), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	close(release)
	if !<-got {
		t.Error("the call returned only after weft gave up on its notifications/cancelled")
	}
}

// TestHTTPPostedCallServerCancelsItsRequest: a server that gives up on its
// own sampling request (notifications/cancelled) has the client's request
// cancelled and the call goes on to its result, as go-sdk's session
// cancels the request's handler; the call's stream is not held by it.
func TestHTTPPostedCallServerCancelsItsRequest(t *testing.T) {
	s := postTestServer()
	mcp.AddTool(s, &mcp.Tool{Name: "impatient"}, func(ctx context.Context, req *mcp.CallToolRequest, _ echoIn) (*mcp.CallToolResult, echoOut, error) {
		ask, cancel := context.WithTimeout(ctx, 200*time.Millisecond) // then go-sdk sends notifications/cancelled
		defer cancel()
		_, err := req.Session.CreateMessage(ask, &mcp.CreateMessageParams{MaxTokens: 1, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		return nil, echoOut{Text: fmt.Sprintf("gave up: %v", err != nil)}, nil
	})
	c := dial(t, serveHTTPOpts(t, s, nil, func(h http.Handler) http.Handler { return h }), Options{})
	peer := &waitingPeer{asked: make(chan struct{}), cancelled: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan RawResult, 1)
	go func() {
		raw, _ := c.CallToolRaw(ctx, peer, "impatient", json.RawMessage(`{}`), nil)
		done <- raw
	}()
	select {
	case raw := <-done:
		if !strings.Contains(string(raw.JSON), "gave up: true") {
			t.Errorf("impatient = %s, want the tool's result after it gave up", raw.JSON)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call still waits on the request its server cancelled")
	}
}

// A posted call's id is encoded as json.Marshal encodes its key, and is
// go-sdk's id for the key.
func TestPostCallIDEncodesAsJSON(t *testing.T) {
	for _, n := range []int64{0, 1, 42, math.MaxInt64, -1} {
		got, err := postCallID(n)
		if err != nil {
			t.Fatal(err)
		}
		key := rawIDPrefix + strconv.FormatInt(n, 10)
		want, _ := json.Marshal(key)
		id, _ := jsonrpc.MakeID(key)
		if string(got.encoded) != string(want) || got.id != id {
			t.Errorf("postCallID(%d) = %s %v, want %s %v", n, got.encoded, got.id, want, id)
		}
	}
}
