package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
)

// ErrMessageTooLarge reports a message over the configured size limit
// (SPEC S10). It fails the connection that sent it, never weft.
var ErrMessageTooLarge = errors.New("message too large")

// lineFilter passes through only lines that can be JSON-RPC messages. A child
// that prints a banner or other noise on stdout would otherwise break its
// session; such lines are logged and dropped. Lines longer than max fail the
// connection with ErrMessageTooLarge.
type lineFilter struct {
	r       *bufio.Reader
	closer  io.Closer
	max     int
	pending []byte
	logger  *slog.Logger
	dropped int
}

func newLineFilter(rc io.ReadCloser, max int, logger *slog.Logger) *lineFilter {
	return &lineFilter{r: bufio.NewReaderSize(rc, 64<<10), closer: rc, max: max, logger: logger}
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.readLine()
		if err != nil {
			return 0, err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if trimmed[0] != '{' {
			f.dropped++
			if f.dropped <= 20 {
				f.logger.Warn("dropped non-JSON line on stdout", "line", truncate(string(trimmed), 200))
			}
			continue
		}
		f.pending = append(trimmed, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine reads one whole line, refusing to buffer more than max bytes.
func (f *lineFilter) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(line)+len(chunk) > f.max {
			return nil, fmt.Errorf("%w: a line on stdout exceeds %d bytes", ErrMessageTooLarge, f.max)
		}
		line = append(line, chunk...)
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

func (f *lineFilter) Close() error { return f.closer.Close() }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
