// Package audit writes weft's audit log: one JSON line per tool call and
// per config change, saying who did what, when, and how it ended. Tool
// arguments are recorded as a digest unless the operator asks for them,
// and known secrets are masked either way. The file is 0600 and rotates by
// size.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/hub"
	"go.opentelemetry.io/otel/trace"
)

// Redactor masks secret values in text; *policy.Secrets is one.
type Redactor interface{ Redact(string) string }

// Options configure a Log.
type Options struct {
	File         string
	LogArguments bool
	// MaxBytes rotates the file once it would grow past this size.
	MaxBytes int64
	// MaxFiles is how many rotated files are kept (File.1 is the newest).
	MaxFiles int
	// Redactor masks secrets in arguments and error text (nil: none known).
	Redactor Redactor
	// TraceIDs looks up each call's trace ID in its context, for the
	// trace_id field; set it when tracing is on. Without a trace the lookup
	// walks the call's whole context (a dozen values deep) for nothing.
	TraceIDs bool
	// Now is the clock (default time.Now); tests inject one.
	Now func() time.Time
}

// Record is one line of the audit log. Kind is "tool_call" or
// "config_change"; the other fields belong to one kind or the other.
type Record struct {
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`

	hub.Caller
	Server     string          `json:"server,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	DurationMS float64         `json:"duration_ms,omitempty"`
	Outcome    hub.Outcome     `json:"outcome,omitempty"`
	Error      string          `json:"error,omitempty"`
	ArgsSHA256 string          `json:"args_sha256,omitempty"`
	TraceID    string          `json:"trace_id,omitempty"` // when tracing is on: find the call's trace
	Args       json.RawMessage `json:"args,omitempty"`

	Change *Change `json:"change,omitempty"`
}

// Change describes a config change: where it came from and what it did.
type Change struct {
	Source  string            `json:"source"` // "reload", "cli", "admin", "mcp_manage", …
	Added   []string          `json:"added,omitempty"`
	Removed []string          `json:"removed,omitempty"`
	Changed []string          `json:"changed,omitempty"`
	Failed  map[string]string `json:"failed,omitempty"`
}

// Log is an open audit log; it implements hub.Observer. Safe for
// concurrent use.
type Log struct {
	opts Options

	mu   sync.Mutex
	f    *os.File
	size int64
	err  error // the last write error, reported once
	// The lines that callers wait on, written together by one of them
	// (write.go).
	batch   batch
	turn    *sync.Cond // signalled when a write ends
	writing bool       // one caller writes, outside mu; it owns f and size meanwhile
	closed  bool
}

// Open opens (or creates, 0600, in a 0700 directory) the audit log.
func Open(opts Options) (*Log, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 1
	}
	if err := os.MkdirAll(filepath.Dir(opts.File), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: cannot create the directory of %s: %w", opts.File, err)
	}
	l := &Log{opts: opts}
	l.turn = sync.NewCond(&l.mu)
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.opts.File, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: cannot open %s: %w; fix the path in [audit] file or its permissions", l.opts.File, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	// An existing file keeps its mode otherwise; the log may hold secrets'
	// digests and who called what, so it is the owner's alone.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("audit log: cannot restrict %s to 0600: %w", l.opts.File, err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Close writes the lines callers are waiting on, then closes the file;
// a line written after Close begins is dropped (so that calls that keep
// ending cannot hold Close off).
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for l.writing || l.batch.written < l.batch.queued {
		if l.writing {
			l.turn.Wait()
			continue
		}
		l.writeQueuedLocked()
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Err returns the last write error, if any (writes never fail a call).
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// CallStarted implements hub.Observer; calls are logged when they end.
func (l *Log) CallStarted(ctx context.Context, _ *hub.Call) context.Context { return ctx }

// ServerChanged implements hub.Observer; status changes are not audited.
func (l *Log) ServerChanged(hub.ServerEvent) {}

// CallEnded implements hub.Observer: one line per tool call.
func (l *Log) CallEnded(ctx context.Context, c *hub.Call) {
	rec := Record{Time: c.Start.UTC(), Kind: "tool_call", Caller: c.Caller, Server: c.Server, Tool: c.Tool,
		DurationMS: float64(c.Duration.Microseconds()) / 1000, Outcome: c.Outcome}
	if l.opts.TraceIDs {
		if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
			rec.TraceID = sc.TraceID().String()
		}
	}
	if c.Err != nil {
		rec.Error = l.redact(c.Err.Error())
	}
	if len(c.Args) > 0 {
		sum := sha256.Sum256(c.Args)
		var digest [2 * sha256.Size]byte // hex.EncodeToString would allocate it as well as the string
		hex.Encode(digest[:], sum[:])
		rec.ArgsSHA256 = string(digest[:])
		if l.opts.LogArguments {
			rec.Args = l.redactArgs(c.Args)
		}
	}
	l.writeRecord(&rec)
}

// ConfigChanged records one config change.
func (l *Log) ConfigChanged(ch Change) {
	for k, v := range ch.Failed {
		ch.Failed[k] = l.redact(v)
	}
	l.Write(Record{Time: l.opts.Now().UTC(), Kind: "config_change", Change: &ch})
}

// Write appends one record, rotating first when the file is full, and
// returns once the line is written. A write error is kept for Err and never
// fails the caller.
func (l *Log) Write(rec Record) { l.writeRecord(&rec) }

// writeRecord is Write of a record the caller keeps; the line is encoded
// into a pooled buffer, which writeLine has copied by the time it returns.
func (l *Log) writeRecord(rec *Record) {
	bp := linePool.Get().(*[]byte)
	defer putLine(bp)
	line, err := encode((*bp)[:0], rec)
	*bp = line
	if err != nil {
		l.fail(fmt.Errorf("audit log: encode: %w", err))
		return
	}
	l.writeLine(line)
}

func (l *Log) fail(err error) {
	l.mu.Lock()
	l.err = err
	l.mu.Unlock()
}

func (l *Log) redact(s string) string {
	if l.opts.Redactor == nil {
		return s
	}
	return l.opts.Redactor.Redact(s)
}

// redactArgs masks secrets inside the arguments' JSON text; masking may
// only replace string contents, so the result stays valid JSON, and is
// dropped (digest only) if it is not.
func (l *Log) redactArgs(args json.RawMessage) json.RawMessage {
	out := json.RawMessage(l.redact(string(args)))
	if !json.Valid(out) {
		return nil
	}
	return out
}

// Path is the file the log writes to.
func (l *Log) Path() string { return l.opts.File }
