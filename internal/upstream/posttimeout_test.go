package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestPostedCallEndsByItsDeadline: weft's POSTs run without the
// transport's response-header timeout (go-sdk's requests keep it), so an
// upstream that takes a tools/call and never answers is cut by the
// call's deadline, and the call returns the deadline's error.
func TestPostedCallEndsByItsDeadline(t *testing.T) {
	hanging := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) {
				<-r.Context().Done() // no headers, ever
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	}
	c := dial(t, serveHTTP(t, testServer(), hanging), Options{})
	posts := c.poster.client.Transport.(headerTransport) // no OAuth on this entry
	if rt := posts.base.(*http.Transport); rt.ResponseHeaderTimeout != 0 {
		t.Errorf("the POSTs' transport has a response-header timeout of %v", rt.ResponseHeaderTimeout)
	}
	if rt := posts.sdk.(*http.Transport); rt.ResponseHeaderTimeout != c.cfg.Timeout() {
		t.Errorf("go-sdk's transport has a response-header timeout of %v, want the server's %v", rt.ResponseHeaderTimeout, c.cfg.Timeout())
	}
	_, err := c.CallToolRawUntil(context.Background(), time.Now().Add(200*time.Millisecond), &fakePeer{}, "echo", json.RawMessage(`{}`), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}

// TestPostedCallEndsByTheCallersDeadline: a caller's own deadline (not
// the server's) ends a posted call as a deadline, not as a cancellation:
// the call's context is then not detached from the caller's (ownContext).
func TestPostedCallEndsByTheCallersDeadline(t *testing.T) {
	release := make(chan struct{})
	url := serveHTTP(t, testServerReleasing(release), nil)
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	c := dial(t, url, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.CallToolRawUntil(ctx, time.Now().Add(time.Hour), &fakePeer{}, "block", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's deadline", err)
	}
}
