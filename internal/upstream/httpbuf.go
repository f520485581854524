package upstream

import (
	"bufio"
	"io"
	"sync"
)

// The read buffers of an HTTP upstream's event streams, pooled: every
// tools/call weft posts gets its own response stream, read through a
// 4 KiB buffer (readEvents'), and every stream go-sdk reads goes through
// shallowBody's line reader; unpooled, they were half of what the upstream
// side of a call allocated.

// streamBuffer is the size of a pooled stream buffer; longer lines are
// read in pieces.
const streamBuffer = 4 << 10

var streamReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, streamBuffer) }}

// takeStreamReader returns a pooled reader of r; give it back with
// returnStreamReader once nothing refers to its buffer.
func takeStreamReader(r io.Reader) *bufio.Reader {
	br := streamReaders.Get().(*bufio.Reader)
	br.Reset(r)
	return br
}

// returnStreamReader puts br back in the pool, dropping its source.
func returnStreamReader(br *bufio.Reader) {
	br.Reset(nil)
	streamReaders.Put(br)
}

// streamLines is a LineReader over a response body whose buffer is pooled.
// The buffer goes back when the reader's own Read sees the body end or
// fail, never on Close: Close may come from another goroutine while a Read
// is in progress, and only the reading goroutine knows the buffer is no
// longer in use. A body closed before its end leaves the buffer to the
// garbage collector.
type streamLines struct {
	*LineReader
	err error // the error that ended the stream, returned by every later Read
}

// newStreamLines is newLineReaderSize with a pooled buffer.
func newStreamLines(rc io.ReadCloser, max int, check func(line []byte) ([]byte, error)) *streamLines {
	return &streamLines{LineReader: &LineReader{r: takeStreamReader(rc), closer: rc, max: max, check: check}}
}

// sourceEnd records that a reader has returned an error (its end): what is
// left to read is buffered, and reading it cannot block. net/http returns
// the last chunk's bytes with io.EOF when the chunked terminator came in
// the same read, which is how a posted call tells, without another read,
// that its stream has ended (readEvents).
type sourceEnd struct {
	r     io.Reader
	ended bool
}

func (s *sourceEnd) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil {
		s.ended = true
	}
	return n, err
}

func (s *streamLines) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.LineReader.Read(p)
	if err != nil {
		// readLine copies each line out of the buffer, so nothing pending
		// refers to it.
		s.err = err
		returnStreamReader(s.r)
		s.r = nil
	}
	return n, err
}
