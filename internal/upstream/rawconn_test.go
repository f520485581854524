package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawPair is a rawConn and the other end of its connection, for a test
// that plays the upstream by hand.
func rawPair(t *testing.T) (*rawConn, mcp.Connection) {
	t.Helper()
	ours, theirs := mcp.NewInMemoryTransports()
	ctx := context.Background()
	a, err := ours.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := theirs.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	rc := newRawConn(a)
	t.Cleanup(func() { _ = rc.Close() })
	return rc, b
}

// readRequest reads the next request the upstream end gets.
func readRequest(t *testing.T, conn mcp.Connection) *jsonrpc.Request {
	t.Helper()
	msg, err := conn.Read(context.Background())
	if err != nil {
		t.Fatalf("upstream read: %v", err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		t.Fatalf("upstream read %T, want a request", msg)
	}
	return req
}

type rawAnswer struct {
	res json.RawMessage
	err error
}

func TestRawConnTakesItsResponsesAndPassesTheRestInOrder(t *testing.T) {
	rc, up := rawPair(t)
	ctx := context.Background()
	got := make(chan rawAnswer, 1)
	go func() {
		res, err := rc.call(ctx, nil, time.Time{}, "tools/call", json.RawMessage(`{"name":"echo"}`))
		got <- rawAnswer{res, err}
	}()
	req := readRequest(t, up)
	if key, _ := req.ID.Raw().(string); req.Method != "tools/call" || len(key) <= len(rawIDPrefix) || key[:len(rawIDPrefix)] != rawIDPrefix {
		t.Fatalf("raw request %q with id %v, want tools/call with a %q id", req.Method, req.ID.Raw(), rawIDPrefix)
	}
	// The session's own response with an integer id, a log line, then the
	// raw call's response: the session reads the first two in order, the
	// caller gets the third.
	sessionID, _ := jsonrpc.MakeID(float64(7)) // as decoded: an integer id
	note := &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"x"}`)}
	wrote := make(chan struct{})
	go func() { // net.Pipe underneath: the writes wait for the reads
		defer close(wrote)
		for _, m := range []jsonrpc.Message{
			&jsonrpc.Response{ID: sessionID, Result: json.RawMessage(`{}`)},
			note,
			&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"content":[{"type":"text","text":"hi"}]}`)},
		} {
			if err := up.Write(ctx, m); err != nil {
				t.Error(err)
			}
		}
	}()
	first, err := rc.Read(ctx)
	if r, ok := first.(*jsonrpc.Response); err != nil || !ok || r.ID != sessionID {
		t.Fatalf("session's first read = %#v, %v; want its own response", first, err)
	}
	second, err := rc.Read(ctx)
	if r, ok := second.(*jsonrpc.Request); err != nil || !ok || r.Method != note.Method {
		t.Fatalf("session's second read = %#v, %v; want the log notification", second, err)
	}
	readDone := make(chan struct{})
	go func() { // the session keeps reading; the raw response never reaches it
		defer close(readDone)
		if msg, err := rc.Read(ctx); err == nil {
			t.Errorf("the session read %#v, which was the raw call's", msg)
		}
	}()
	a := <-got
	if a.err != nil || string(a.res) != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Errorf("raw call = %s, %v; want the upstream's result as sent", a.res, a.err)
	}
	<-wrote
	_ = rc.Close()
	<-readDone
}

func TestRawConnRelaysTheUpstreamsError(t *testing.T) {
	rc, up := rawPair(t)
	go func() {
		req := readRequest(t, up)
		_ = up.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32042, Message: "no such thing"}})
	}()
	go func() { _, _ = rc.Read(context.Background()) }() // the session's reader
	_, err := rc.call(context.Background(), nil, time.Time{}, "tools/call", json.RawMessage(`{}`))
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != -32042 || wire.Message != "no such thing" {
		t.Fatalf("raw call = %v, want the upstream's JSON-RPC error", err)
	}
}

func TestRawConnCancelledCallTellsTheUpstream(t *testing.T) {
	rc, up := rawPair(t)
	go func() { _, _ = rc.Read(context.Background()) }()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := rc.call(ctx, nil, time.Time{}, "tools/call", json.RawMessage(`{}`))
		done <- err
	}()
	req := readRequest(t, up)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled raw call = %v, want context.Canceled", err)
	}
	note := readRequest(t, up)
	var p mcp.CancelledParams
	if note.Method != "notifications/cancelled" || json.Unmarshal(note.Params, &p) != nil || p.RequestID != req.ID.Raw() {
		t.Fatalf("after cancel the upstream got %s %s, want notifications/cancelled for %v", note.Method, note.Params, req.ID.Raw())
	}
}

// TestRawConnDeadlineEndsTheCallAsAContextDeadline: a raw call given a
// deadline (the server's timeout, carried down from the hub instead of a
// context of its own) ends as one whose context had it: with
// context.DeadlineExceeded, the upstream told the call was cancelled; and
// a deadline already past is refused before anything is written.
func TestRawConnDeadlineEndsTheCallAsAContextDeadline(t *testing.T) {
	rc, up := rawPair(t)
	go func() { _, _ = rc.Read(context.Background()) }()
	if _, err := rc.call(context.Background(), nil, time.Now().Add(-time.Millisecond), "tools/call", json.RawMessage(`{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("raw call past its deadline = %v, want context.DeadlineExceeded", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := rc.call(context.Background(), nil, time.Now().Add(50*time.Millisecond), "tools/call", json.RawMessage(`{}`))
		done <- err
	}()
	req := readRequest(t, up) // never answered
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("raw call past its deadline = %v, want context.DeadlineExceeded", err)
	}
	note := readRequest(t, up)
	var p mcp.CancelledParams
	if note.Method != "notifications/cancelled" || json.Unmarshal(note.Params, &p) != nil || p.RequestID != req.ID.Raw() {
		t.Fatalf("after the deadline the upstream got %s %s, want notifications/cancelled for %v", note.Method, note.Params, req.ID.Raw())
	}
}

func TestRawConnCloseFailsTheCallsInFlight(t *testing.T) {
	rc, up := rawPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := rc.call(context.Background(), nil, time.Time{}, "tools/call", json.RawMessage(`{}`))
		done <- err
	}()
	readRequest(t, up)
	_ = rc.Close()
	if err := <-done; !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("raw call cut by Close = %v, want mcp.ErrConnectionClosed", err)
	}
	if _, err := rc.call(context.Background(), nil, time.Time{}, "tools/call", json.RawMessage(`{}`)); !errors.Is(err, mcp.ErrConnectionClosed) {
		t.Fatalf("raw call after Close = %v, want mcp.ErrConnectionClosed", err)
	}
}

// dialStdio starts the test binary as a stdio upstream.
func dialStdio(t *testing.T) *Conn {
	t.Helper()
	c, err := Dial(context.Background(), stdioServer(), Options{Logger: quiet()})
	if err != nil {
		t.Fatalf("dial the stdio child: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	if c.raw == nil {
		t.Fatal("a stdio connection has no raw path")
	}
	return c
}

func TestCallToolRawGivesWhatCallToolGives(t *testing.T) {
	c := dialStdio(t)
	ctx := context.Background()
	args := json.RawMessage(`{"text":"raw"}`)
	raw, err := c.CallToolRaw(ctx, &fakePeer{}, "echo", args, nil)
	if err != nil {
		t.Fatalf("raw echo: %v", err)
	}
	typed, err := c.CallTool(ctx, &fakePeer{}, "echo", args, nil)
	if err != nil {
		t.Fatalf("typed echo: %v", err)
	}
	want, _ := encodeResult(typed)
	if string(raw.JSON) != string(want.JSON) || raw.IsError {
		t.Errorf("raw echo = %s (isError %v), want %s", raw.JSON, raw.IsError, want.JSON)
	}
}

func TestCallToolRawRelaysProgressAndLogsBeforeTheResult(t *testing.T) {
	c := dialStdio(t)
	peer := &fakePeer{}
	raw, err := c.CallToolRaw(context.Background(), peer, "chatty", json.RawMessage(`{}`), mcp.Meta{"progressToken": "client-token"})
	if err != nil {
		t.Fatalf("chatty: %v", err)
	}
	if want := `"text":"done"`; !json.Valid(raw.JSON) || !strings.Contains(string(raw.JSON), want) {
		t.Fatalf("chatty = %s, want it to hold %s", raw.JSON, want)
	}
	checkChattyRelayed(t, peer)
}

func TestCallToolRawCutByCloseFailsWithErrClosedInFlight(t *testing.T) {
	c := dialStdio(t)
	err := closeDuringCall(c, func() error {
		_, err := c.CallToolRaw(context.Background(), nil, "block", nil, nil)
		return err
	})
	if !errors.Is(err, ErrClosedInFlight) {
		t.Fatalf("raw call cut by Close: %v, want ErrClosedInFlight", err)
	}
}

func TestCallToolRawOfAnExitingChildIsUpstreamGone(t *testing.T) {
	c := dialStdio(t)
	_, err := c.CallToolRaw(context.Background(), nil, "exit", nil, nil)
	if !errors.Is(err, ErrUpstreamGone) {
		t.Fatalf("raw call whose server exits: %v, want ErrUpstreamGone", err)
	}
}

func TestPlainResultLeavesOddResultsToTheTypedPath(t *testing.T) {
	tests := []struct {
		raw   string
		plain bool
		isErr bool
	}{
		{`{"content":[{"type":"text","text":"a"}]}`, true, false},
		{`{"content":[],"isError":true}`, true, true},
		{`{}`, false, false},
		{`{"content":null}`, false, false},
		{`{"content":[],"inputRequests":{"a":{}}}`, false, false},
		{`{"content":[],"inputRequests":null}`, true, false},
		{`null`, false, false},
		{`{"content":[],"isError":"yes"}`, false, false},
	}
	for _, tt := range tests {
		shape, plain := plainResult(json.RawMessage(tt.raw))
		if plain != tt.plain || (plain && shape.IsError != tt.isErr) {
			t.Errorf("plainResult(%s) = %v (isError %v), want %v (%v)", tt.raw, plain, shape.IsError, tt.plain, tt.isErr)
		}
	}
}

func TestRawConnTakesItsResultLinesBeforeTheSession(t *testing.T) {
	rc := newRawConn(nil)
	ch := make(chan rawReply, 1)
	rc.waiting[1] = ch
	tests := []struct {
		name string
		line string
		take bool
	}{
		{"the session's own response", `{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"weft-raw-1"}}`, false},
		{"an error, read by go-sdk", `{"jsonrpc":"2.0","id":"weft-raw-1","error":{"code":-32000,"message":"x"}}`, false},
		{"a key go-sdk reads case-sensitively", `{"jsonrpc":"2.0","ID":"weft-raw-1","result":{}}`, false},
		{"an extra key", `{"jsonrpc":"2.0","id":"weft-raw-1","result":{},"method":"x"}`, false},
		{"nested deeper than go-sdk reads", `{"jsonrpc":"2.0","id":"weft-raw-1","result":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`, false},
		{"a result nobody waits for", `{"jsonrpc":"2.0","id":"weft-raw-9","result":{}}`, true},
		{"weft's id, not one weft gives", `{"jsonrpc":"2.0","id":"weft-raw-x1","result":{}}`, true},
		{"weft's id escaped, nobody waits", `{"jsonrpc":"2.0","id":"weft-raw-\u0039","result":{}}`, true},
		{"the raw call's result", `{"jsonrpc":"2.0","id":"weft-raw-1","result":{"content":[]}}`, true},
	}
	for _, tt := range tests {
		if got := rc.take([]byte(tt.line)); got != tt.take {
			t.Errorf("%s: take = %v, want %v", tt.name, got, tt.take)
		}
	}
	select {
	case reply := <-ch:
		if string(reply.result) != `{"content":[]}` || reply.err != nil {
			t.Errorf("the caller got %s (%v), want its result as sent", reply.result, reply.err)
		}
	default:
		t.Error("the caller got nothing")
	}
}

func TestStdioLinesCountNotificationsInLineOrder(t *testing.T) {
	order := newNoteOrder()
	line := stdioLine(newRawConn(nil), order)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`{"jsonrpc":"2.0","id":3,"method":"notifications/message"}`,
	} {
		if line([]byte(msg)) {
			t.Errorf("stdioLine took %s, which is the session's", msg)
		}
	}
	if order.read != 2 {
		t.Errorf("counted %d ordered notifications, want 2 (progress and log)", order.read)
	}
}

// TestRawSeqOfReadsTheIDAsGoSDKDecodesIt: the number of weft's own call
// id, read in place when plain and decoded otherwise; an id with weft's
// prefix whose number weft never gives is still weft's (seq -1).
func TestRawSeqOfReadsTheIDAsGoSDKDecodesIt(t *testing.T) {
	tests := []struct {
		raw  string
		seq  int64
		ours bool
	}{
		{`"weft-raw-12"`, 12, true},
		{`"weft-raw-\u0031\u0032"`, 12, true},
		{`"weft-raw-"`, -1, true},
		{`"weft-raw-1x"`, -1, true},
		{`"weft-raw-1234567890123456789"`, -1, true},
		{`"other-12"`, 0, false},
		{`12`, 0, false},
		{`"weft-raw-12`, 0, false},
	}
	for _, tt := range tests {
		if seq, ours := rawSeqOf([]byte(tt.raw)); seq != tt.seq || ours != tt.ours {
			t.Errorf("rawSeqOf(%s) = %d, %v; want %d, %v", tt.raw, seq, ours, tt.seq, tt.ours)
		}
	}
}
