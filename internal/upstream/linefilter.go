package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
)

// ErrMessageTooLarge reports a message over the configured size limit.
// It fails the connection that sent it, never weft.
var ErrMessageTooLarge = errors.New("message too large")

// LineReader hands a newline-delimited JSON-RPC connection one whole,
// size-bounded, checked line at a time. check returns the bytes to pass on
// (nil drops the line) or an error that ends the connection.
type LineReader struct {
	r       *bufio.Reader
	closer  io.Closer
	max     int
	check   func(line []byte) ([]byte, error)
	pending []byte
	// handedOff is set by the check when it handed a line to a waiting
	// goroutine (a raw call's result); see yieldToWoken.
	handedOff bool
}

// lineBuffer is a LineReader's read buffer. It is held for a connection's
// whole life, so it is small: 100 stdio upstreams held 6.4 MB of 64 KiB
// buffers; a call's message is rarely over 4 KiB, and a longer line is read
// in pieces.
const lineBuffer = 4 << 10

// NewLineReader reads rc line by line; a line over max bytes fails with
// ErrMessageTooLarge.
func NewLineReader(rc io.ReadCloser, max int, check func(line []byte) ([]byte, error)) *LineReader {
	return newLineReaderSize(rc, lineBuffer, max, check)
}

// newLineReaderSize is NewLineReader with a read buffer of size bytes;
// lines longer than it are read in pieces.
func newLineReaderSize(rc io.ReadCloser, size, max int, check func(line []byte) ([]byte, error)) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(rc, size), closer: rc, max: max, check: check}
}

func (l *LineReader) Read(p []byte) (int, error) {
	for len(l.pending) == 0 {
		line, err := readLine(l.r, l.max)
		if err != nil {
			return 0, err
		}
		if l.pending, err = l.check(line); err != nil {
			return 0, err
		}
		l.yieldToWoken()
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// yieldToWoken lets the goroutine a line was just handed to run before
// this one reads on, when nothing more is buffered. The woken goroutine (a
// raw call's caller) waits in this P's run queue until the reader blocks,
// and the reader's next step is a read of the empty pipe and a park in the
// netpoller: at one call in flight that is ~13 µs between a result's
// arrival and its caller running (docs/guides/performance.md, "Latency at
// concurrency 1"). Yielding puts the reader on the global queue, where the
// processor the wake-up started picks it up, and the caller runs now. With
// more lines buffered (many calls in flight) the reader goes on: they are
// results too.
func (l *LineReader) yieldToWoken() {
	if l.handedOff && l.r.Buffered() == 0 {
		runtime.Gosched()
	}
	l.handedOff = false
}

// Close closes the underlying reader.
func (l *LineReader) Close() error { return l.closer.Close() }

// newLineFilter passes through only lines that can be JSON-RPC messages. A
// child that prints a banner or other noise on stdout would otherwise break
// its session; such lines are logged and dropped. take sees every message
// line first and keeps the ones it reports true for from the session.
func newLineFilter(rc io.ReadCloser, max int, logger *slog.Logger, take func(msg []byte) bool) *LineReader {
	dropped := 0
	var l *LineReader
	l = NewLineReader(rc, max, func(line []byte) ([]byte, error) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			return nil, nil
		}
		if trimmed[0] != '{' {
			dropped++
			if dropped <= 20 {
				logger.Warn("dropped non-JSON line on stdout", "line", truncate(string(trimmed), 200))
			}
			return nil, nil
		}
		if take(trimmed) {
			l.handedOff = true
			return nil, nil
		}
		return append(shallowSchemas(trimmed), '\n'), nil
	})
	return l
}

// readLine reads one whole newline-terminated line (or the last,
// unterminated one), failing rather than buffering more than max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, fmt.Errorf("%w: a line exceeds %d bytes", ErrMessageTooLarge, max)
		}
		line = appendPiece(line, chunk, max)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(line) > 0 && errors.Is(err, io.EOF) {
				return line, nil
			}
			return nil, err
		}
		return line, nil
	}
}

// appendPiece appends a piece of a line to line, at most max bytes in
// all. A line longer than the read buffer (a page of an upstream's tools
// is one line of megabytes) comes in pieces of the buffer's size; append
// grows a slice that large by a quarter at a time, copying the line about
// five times over before it is whole, where doubling copies it about twice.
func appendPiece(line, piece []byte, max int) []byte {
	if n := len(line); n > 0 && cap(line)-n < len(piece) {
		line = slices.Grow(line, min(n, max-n))
	}
	return append(line, piece...)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
