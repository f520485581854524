package audit

import "fmt"

// A call's line is written before the call returns, as it always was; what
// changed is who writes it. Calls that end while another's write(2) is
// under way queue their lines, and the next writer writes all of them in
// one write(2) (a group commit): at 64 calls in flight one write carries
// many lines, so the file and the watchers of its directory (weft's own
// config watcher among them) see one change where they saw many, and no
// call waits on the lock through another's system call.

// batch is the lines queued for the next write and how many lines were
// ever queued and written, so that a caller knows when its own is out.
type batch struct {
	buf     []byte
	ends    []int // the end offset of each line in buf
	queued  uint64
	written uint64
	spare   []byte // the last write's buffer, reused
}

// keptBatchBytes is the largest write buffer kept for reuse: the lines of
// 64 calls ending together fit, and a rare large line (arguments logged in
// full) is not held for the log's life.
const keptBatchBytes = 64 << 10

// writeLine queues line and returns once it has been written (or failed).
func (l *Log) writeLine(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.batch.buf = append(l.batch.buf, line...)
	l.batch.ends = append(l.batch.ends, len(l.batch.buf))
	l.batch.queued++
	mine := l.batch.queued
	for l.batch.written < mine {
		if l.writing {
			l.turn.Wait()
			continue
		}
		l.writeQueuedLocked()
	}
}

// writeQueuedLocked writes every queued line, releasing l.mu meanwhile so
// that more can queue; l.mu is held on entry and on return.
func (l *Log) writeQueuedLocked() {
	buf, ends := l.batch.buf, l.batch.ends
	l.batch.buf, l.batch.ends = l.batch.spare[:0], nil
	l.writing = true
	l.mu.Unlock()
	err := l.writeLines(buf, ends)
	l.mu.Lock()
	l.writing = false
	l.batch.written += uint64(len(ends))
	l.batch.spare = nil
	if cap(buf) <= keptBatchBytes {
		l.batch.spare = buf
	}
	if err != nil {
		l.err = err
	}
	l.turn.Broadcast()
}

// writeLines writes the lines of buf (ending at ends), rotating the file
// before a line that would grow it past MaxBytes, as one write per file.
// The caller has the writing turn, which owns l.f and l.size; with no file
// (a rotation failed to reopen it) the lines are dropped, as before.
func (l *Log) writeLines(buf []byte, ends []int) error {
	var err error
	start := 0
	for i, end := range ends {
		lineStart := 0
		if i > 0 {
			lineStart = ends[i-1]
		}
		size := l.size + int64(lineStart-start) // the file's size once the lines before this one are written
		if l.f == nil || size == 0 || l.opts.MaxBytes <= 0 || size+int64(end-lineStart) <= l.opts.MaxBytes {
			continue
		}
		if werr := l.write(buf[start:lineStart]); werr != nil {
			err = werr
		}
		if rerr := l.rotate(); rerr != nil {
			err = rerr
		}
		start = lineStart
	}
	if l.f == nil {
		return err
	}
	if werr := l.write(buf[start:]); werr != nil {
		err = werr
	}
	return err
}

// write appends p to the file and counts what was written.
func (l *Log) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit log: write %s: %w", l.opts.File, err)
	}
	return nil
}
