package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"
)

// TestHTTPPostedCallReturnsWhileTheServerKeepsItsStreamOpen: a server may
// keep a call's event stream open after the response (closing it is a
// SHOULD); the call returns its result all the same, as go-sdk's does,
// instead of waiting for the stream to end.
func TestHTTPPostedCallReturnsWhileTheServerKeepsItsStreamOpen(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	keepOpen := answeredThenHeld("kept open", release) // the stream stays open until the test ends
	c := dial(t, serveHTTPOpts(t, postTestServer(), nil, keepOpen), Options{})
	type outcome struct {
		raw string
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		raw, err := c.CallToolRaw(context.Background(), &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
		done <- outcome{string(raw.JSON), err}
	}()
	select {
	case got := <-done:
		if got.err != nil || !strings.Contains(got.raw, "kept open") {
			t.Fatalf("echo = %s, %v; want the response the server sent", got.raw, got.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call still waits for the server to end its stream")
	}
}

// TestHTTPPostedCallKeepsItsConnectionWhenTheStreamEndsLater: a stream
// that ends only after the call has returned (go-sdk's server writes the
// chunked terminator a moment after the response) is still read to its
// end, although the caller's context has ended, so that its connection is
// kept for the next call.
func TestHTTPPostedCallKeepsItsConnectionWhenTheStreamEndsLater(t *testing.T) {
	release := make(chan struct{})
	endLater := answeredThenHeld("later", release) // the stream ends once the call has returned
	c := dial(t, serveHTTPOpts(t, postTestServer(), nil, endLater), Options{})
	kept := make(chan error, 1)
	trace := &httptrace.ClientTrace{PutIdleConn: func(err error) { kept <- err }}
	ctx, cancel := context.WithCancel(httptrace.WithClientTrace(context.Background(), trace))
	raw, err := c.CallToolRaw(ctx, &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
	cancel() // as the client's request ends once answered
	close(release)
	if err != nil || !strings.Contains(string(raw.JSON), "later") {
		t.Fatalf("echo = %s, %v; want the response the server sent", raw.JSON, err)
	}
	select {
	case err := <-kept:
		if err != nil {
			t.Fatalf("the call's connection was not kept: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call's stream was cut, not read to its end: its connection was not kept")
	}
}

// answeredThenHeld answers a tools/call with text on an event stream and
// holds the stream open until release is closed or the request ends.
func answeredThenHeld(text string, release <-chan struct{}) func(http.Handler) http.Handler {
	return toolCallsAnswered(func(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":[{"type":"text","text":"`+text+`"}]}}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
}

// toolCallsAnswered wraps a server's handler so that answer, given the
// request's id, answers each POSTed tools/call in its place.
func toolCallsAnswered(answer func(w http.ResponseWriter, r *http.Request, id json.RawMessage)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if r.Method == http.MethodPost && json.Unmarshal(body, &req) == nil && req.Method == "tools/call" {
				answer(w, r, req.ID)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
