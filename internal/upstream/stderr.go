package upstream

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxStderrLine bounds one logged line of a child's stderr.
const maxStderrLine = 4096

// stderrReadBuffer is what ReadFrom reads the child's stderr through, for
// the child's whole life.
const stderrReadBuffer = 1 << 10

// Relayed stderr is rate-limited per child: a burst of stderrBurst lines,
// then stderrRate lines a second. A server that floods its stderr must not
// flood weft's log (or the pipe a client may never read) with it.
const (
	stderrRate  = 50
	stderrBurst = 200
)

// A connect failure quotes the last stderrTailLines lines the child wrote,
// each cut to stderrTailWidth bytes: why npx failed (a 404, a missing
// runtime) is usually there, and the user should not need debug logs to see it.
const (
	stderrTailLines = 5
	stderrTailWidth = 300
)

// stderrRelay is a child's stderr: it logs what the child writes, one record
// per line, each bounded in length, and drops (and counts) the lines over the
// rate limit. Write never waits on anything but the logger, which weft's
// command line makes non-blocking (internal/logsink), and never fails, so the
// child is never held up by weft's own log.
type stderrRelay struct {
	logger *slog.Logger
	now    func() time.Time

	mu      sync.Mutex
	partial []byte
	tokens  float64
	last    time.Time
	dropped int      // lines dropped since the last one logged
	tail    []string // the last lines, logged or dropped
}

func newStderrRelay(logger *slog.Logger) *stderrRelay {
	return &stderrRelay{logger: logger, now: time.Now, tokens: stderrBurst}
}

// Write logs every complete line of b; a line longer than maxStderrLine is
// logged in pieces of that size.
func (r *stderrRelay) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			room := maxStderrLine - len(r.partial)
			if len(b) < room {
				r.partial = append(r.partial, b...)
				return n, nil
			}
			r.partial = append(r.partial, b[:room]...)
			b = b[room:]
			r.emitLocked()
			continue
		}
		r.partial = append(r.partial, b[:min(i, maxStderrLine)]...)
		b = b[i+1:]
		r.emitLocked()
	}
	return n, nil
}

// ReadFrom relays src (the child's stderr pipe) until it ends. os/exec
// copies a child's stderr into a Writer that is not a file with io.Copy,
// which uses this method when there is one: without it, each child held a
// 32 KiB copy buffer for its whole life (3.2 MB for 100 stdio upstreams).
func (r *stderrRelay) ReadFrom(src io.Reader) (int64, error) {
	buf := make([]byte, stderrReadBuffer)
	var total int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			_, _ = r.Write(buf[:n])
			total += int64(n)
		}
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// flush logs an unterminated last line and reports drops not yet reported.
func (r *stderrRelay) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.emitLocked()
	}
	r.reportDropsLocked()
}

// emitLocked logs the pending line if the rate limit allows, else counts it.
func (r *stderrRelay) emitLocked() {
	line := string(bytes.TrimRight(r.partial, "\r"))
	r.partial = r.partial[:0]
	r.keepLocked(line)
	now := r.now()
	if !r.last.IsZero() {
		r.tokens = min(stderrBurst, r.tokens+now.Sub(r.last).Seconds()*stderrRate)
	}
	r.last = now
	if r.tokens < 1 {
		r.dropped++
		return
	}
	r.tokens--
	r.reportDropsLocked()
	r.logger.Info("stderr", "line", line)
}

func (r *stderrRelay) reportDropsLocked() {
	if r.dropped == 0 {
		return
	}
	r.logger.Warn("stderr lines dropped: the server writes more than weft relays",
		"dropped", r.dropped, "limit_per_second", stderrRate)
	r.dropped = 0
}

// keepLocked adds line to the tail, dropping the oldest past the bound.
func (r *stderrRelay) keepLocked(line string) {
	if len(line) > stderrTailWidth {
		line = line[:stderrTailWidth] + "…"
	}
	if strings.TrimSpace(line) == "" {
		return
	}
	r.tail = append(r.tail, line)
	if len(r.tail) > stderrTailLines {
		r.tail = r.tail[len(r.tail)-stderrTailLines:]
	}
}

// lastLines returns the last lines the child wrote to stderr, an
// unterminated one included.
func (r *stderrRelay) lastLines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.tail)
	if p := strings.TrimSpace(string(r.partial)); p != "" {
		out = append(out, p)
	}
	if len(out) > stderrTailLines {
		out = out[len(out)-stderrTailLines:]
	}
	return out
}
