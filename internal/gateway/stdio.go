package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// stdinFilter passes a stdio client's messages on one line at a time, each
// bounded by max bytes and checked like an HTTP body. A refused line (not
// JSON, a batch, not an object, too deep, an unusable id, over the limit)
// is answered on stdout with the JSON-RPC error, as the HTTP face answers
// it with 400, and skipped: the session goes on, so one bad line from a
// client costs that line only.
type stdinFilter struct {
	r       *bufio.Reader
	closer  io.Closer
	max     int
	reply   io.Writer // the session's stdout, shared with the transport
	logger  *slog.Logger
	pending []byte
}

func newStdinFilter(in io.ReadCloser, max int, reply io.Writer, logger *slog.Logger) *stdinFilter {
	return &stdinFilter{r: bufio.NewReaderSize(in, 64<<10), closer: in, max: max, reply: reply, logger: logger}
}

func (f *stdinFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := readBoundedLine(f.r, f.max)
		if errors.Is(err, errLineTooLong) {
			f.refuse(&Refusal{jsonrpc.CodeInvalidRequest, fmt.Sprintf("message exceeds %d bytes (limits.max_message_bytes)", f.max)})
			continue
		}
		if err != nil {
			return 0, err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if bad := checkMessage(trimmed); bad != nil {
			f.refuse(bad)
			continue
		}
		f.pending = append(trimmed, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// Close closes stdin.
func (f *stdinFilter) Close() error { return f.closer.Close() }

func (f *stdinFilter) refuse(r *Refusal) {
	f.logger.Warn("stdio client message refused", "code", r.Code, "reason", r.Message)
	_, _ = f.reply.Write(append(errorResponse(r, jsonrpc.ID{}), '\n'))
}

var errLineTooLong = errors.New("line too long")

// readBoundedLine reads one newline-terminated line (or the last,
// unterminated one). A line over max bytes is read to its end and dropped,
// never buffered, and reported as errLineTooLong.
func readBoundedLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > max {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		switch {
		case tooLong && (err == nil || errors.Is(err, io.EOF)):
			return nil, errLineTooLong
		case err != nil && len(line) > 0 && errors.Is(err, io.EOF):
			return line, nil
		case err != nil:
			return nil, err
		}
		return line, nil
	}
}

// lockedWriter makes each Write whole: the transport and the filter's
// refusals share stdout, one message per Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close closes the underlying writer.
func (l *lockedWriter) Close() error { return l.w.Close() }
