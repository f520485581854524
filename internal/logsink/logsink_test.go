package logsink

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockedWriter blocks every Write until released, as a pipe nobody reads.
type blockedWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (w *blockedWriter) Write(b []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *blockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestWriteNeverBlocksAndCountsDrops(t *testing.T) {
	out := &blockedWriter{release: make(chan struct{})}
	s := New(out, 100)
	line := []byte(strings.Repeat("x", 39) + "\n")
	for range 100 { // 4000 bytes into a 100-byte queue whose output is stuck
		if n, err := s.Write(line); n != len(line) || err != nil {
			t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(line))
		}
	}
	if d := s.Dropped(); d < 4000-200 {
		t.Fatalf("Dropped = %d, want at least %d", d, 4000-200)
	}
	close(out.release)
	s.Close(context.Background())
	got := out.String()
	if !strings.Contains(got, "bytes of log dropped: its output was not being read") {
		t.Errorf("output does not report the drop:\n%s", got)
	}
	if !strings.HasPrefix(got, string(line)) {
		t.Errorf("output does not start with the first queued line:\n%s", got)
	}
}

func TestCloseFlushesInOrder(t *testing.T) {
	var out bytes.Buffer
	s := New(&out, 0)
	for i := range 5 {
		_, _ = s.Write([]byte{byte('a' + i), '\n'})
	}
	s.Close(context.Background())
	if got := out.String(); got != "a\nb\nc\nd\ne\n" {
		t.Errorf("output %q, want the five lines in order", got)
	}
	if _, err := s.Write([]byte("late\n")); err != nil {
		t.Errorf("Write after Close: %v", err)
	}
}

func TestCloseIsBoundedByItsContext(t *testing.T) {
	out := &blockedWriter{release: make(chan struct{})}
	defer close(out.release) // lets the drain goroutine end
	s := New(out, 0)
	_, _ = s.Write([]byte("stuck\n"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s.Close(ctx) // must return although the output accepts nothing
	if ctx.Err() == nil {
		t.Fatal("Close returned before its context ended while the output was stuck")
	}
}
