//go:build linux

package main

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// The raw stdio client takes only a response for its own request: a child
// that echoes each line back (cat: every line a request, with an id, never
// a response) is not answered, and the handshake ends with the context
// instead of taking the echo for the server's answer or waiting forever.
func TestRawStdioWaitsForAResponseWithinItsContext(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	w := &workspace{dir: t.TempDir()}
	// A bound on the handshake, not a measurement.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		rs, err := w.spawnRaw(ctx, cat)
		if err == nil {
			rs.close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the handshake took cat's echo of initialize for its response")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handshake went on 30 s after its context ended")
	}
}
