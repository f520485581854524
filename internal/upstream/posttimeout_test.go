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
