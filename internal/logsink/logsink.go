// Package logsink is the writer weft's log goes through: a bounded queue in
// front of the real output (stderr) drained by one goroutine, so that a log
// call never waits on the output. When the queue is full (a client that
// launched weft pipes its stderr and never reads it) records are dropped and
// counted, and the count is written once the output accepts data again.
package logsink

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// DefaultQueue is how many bytes of log may wait for the output.
const DefaultQueue = 1 << 20

// Sink is an io.Writer that never blocks. Close it to flush and stop its
// goroutine.
type Sink struct {
	out io.Writer
	max int

	mu      sync.Mutex
	queue   [][]byte
	queued  int
	dropped int64 // bytes dropped since the last report
	total   int64 // bytes dropped in all
	closed  bool
	wake    chan struct{}
	stopped chan struct{}
}

// New starts a sink writing to out with room for max bytes (DefaultQueue if
// max <= 0).
func New(out io.Writer, max int) *Sink {
	if max <= 0 {
		max = DefaultQueue
	}
	s := &Sink{out: out, max: max, wake: make(chan struct{}, 1), stopped: make(chan struct{})}
	go s.drain()
	return s
}

// Write queues a copy of b, or drops it if the queue has no room. It always
// reports success: a log record that cannot be written is not the caller's
// error to handle.
func (s *Sink) Write(b []byte) (int, error) {
	s.mu.Lock()
	if s.closed || s.queued+len(b) > s.max {
		s.dropped += int64(len(b))
		s.total += int64(len(b))
		s.mu.Unlock()
		return len(b), nil
	}
	s.queue = append(s.queue, append([]byte(nil), b...))
	s.queued += len(b)
	select { // under mu: Close closes wake
	case s.wake <- struct{}{}:
	default:
	}
	s.mu.Unlock()
	return len(b), nil
}

// Dropped is how many bytes were dropped since the sink started.
func (s *Sink) Dropped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Close stops accepting records and waits until the queue is written or ctx
// ends; an output that accepts nothing cannot hold weft's exit.
func (s *Sink) Close(ctx context.Context) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.wake)
	}
	s.mu.Unlock()
	select {
	case <-s.stopped:
	case <-ctx.Done():
	}
}

// drain writes queued records in order until Close. If the output blocks for
// good, this goroutine blocks with it; nothing else does.
func (s *Sink) drain() {
	defer close(s.stopped)
	for {
		s.mu.Lock()
		batch, dropped, closed := s.queue, s.dropped, s.closed
		s.queue, s.queued, s.dropped = nil, 0, 0
		s.mu.Unlock()
		for _, b := range batch {
			_, _ = s.out.Write(b)
		}
		// Drops happen once the queue is full, so after what it holds.
		if dropped > 0 {
			fmt.Fprintf(s.out, "weft: %d bytes of log dropped: its output was not being read\n", dropped)
		}
		if len(batch) > 0 || dropped > 0 {
			continue // more may have arrived while writing
		}
		if closed {
			return
		}
		<-s.wake
	}
}
