//go:build linux

package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A raw client whose handshake fails after the server gave it a session
// ends that session (DELETE), as it does once it has listed.
func TestDialRawEndsTheSessionOfAFailedHandshake(t *testing.T) {
	var deleted atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodDelete:
			deleted.Store(true)
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`)
		default:
			http.Error(w, "no", http.StatusInternalServerError)
		}
	}))
	defer ts.Close()
	if rc, err := dialRaw(context.Background(), ts.URL); err == nil {
		rc.close()
		t.Fatal("a handshake whose initialized notification failed succeeded")
	}
	if !deleted.Load() {
		t.Error("the session the server gave was left open")
	}
}
