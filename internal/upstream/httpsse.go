package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The event stream of weft's posted call, read as go-sdk v1.8.0's
// streamable client reads one: events of type "message" carry one message
// each (data lines joined by newlines), events without data only move the
// last event id (priming events), comments and other event types are
// skipped. A stream that ends before the call's response is resumed with a
// GET carrying Last-Event-ID when the server gave event ids, with go-sdk's
// delays and its limit of retries without progress; without ids the call
// ends as go-sdk ends it ("request terminated without response").

// Resumption limits, go-sdk's defaults (StreamableClientTransport.MaxRetries
// and its reconnect backoff).
const (
	resumeRetries      = 5
	resumeInitialDelay = time.Second
	resumeGrowFactor   = 1.5
	resumeMaxDelay     = 30 * time.Second
)

// errNoResponse ends a call whose stream closed without its response and
// without an event id to resume from; go-sdk's wording.
var errNoResponse = errors.New("request terminated without response")

// sseEvent is one event of a stream.
type sseEvent struct {
	name, id, retry string
	data            []byte
}

// empty reports whether no field of the event was read.
func (e sseEvent) empty() bool {
	return e.data == nil && e.id == "" && e.retry == "" && e.name == ""
}

// readStream reads the call's response from an event stream, resuming it
// as go-sdk does when it ends early.
func (c *Conn) readStream(ctx context.Context, hreq *postedRequest, resp *http.Response, want callID, summary string) (json.RawMessage, error) {
	var prev string
	stalled := 0
	for {
		a, last, delay, err := c.readEvents(ctx, hreq, resp, want, summary)
		if a != nil || err != nil {
			if a == nil {
				return nil, err
			}
			return a.result, a.err
		}
		if last == "" {
			return nil, errNoResponse
		}
		if last != prev {
			prev, stalled = last, 0
		} else if stalled++; stalled > resumeRetries {
			return nil, connFailure{fmt.Errorf("%s: exceeded %d retries without progress (session ID: %v)", summary, resumeRetries, c.session.ID())}
		}
		resp, err = c.resume(ctx, hreq.ctx, last, delay)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, connFailure{fmt.Errorf("%s: failed to reconnect (session ID: %v): %v", summary, c.session.ID(), err)}
		}
		if err := c.checkStatus(resp, summary); err != nil {
			if !errors.As(err, new(connFailure)) && !errors.Is(err, mcp.ErrSessionMissing) {
				err = connFailure{err} // go-sdk fails the connection on any refused resumption
			}
			return nil, err
		}
	}
}

// readEvents reads one response body of the stream until the call's
// response (a), its end (the last event id and the server's retry delay,
// to resume from), or a failure that ends the call (err).
func (c *Conn) readEvents(ctx context.Context, hreq *postedRequest, resp *http.Response, want callID, summary string) (a *answer, last string, delay time.Duration, err error) {
	src := &sourceEnd{r: resp.Body}
	r := takeStreamReader(src) // pooled (httpbuf.go): nextEvent copies what it keeps
	defer returnStreamReader(r)
	defer func() {
		if a == nil {
			finishStream(resp.Body)
		}
	}()
	for {
		evt, rerr := c.nextEvent(r)
		if rerr != nil {
			if ctx.Err() != nil {
				return nil, "", 0, ctx.Err()
			}
			if errors.Is(rerr, errEventTooLarge) {
				return nil, "", 0, connFailure{fmt.Errorf("%s: %v", summary, rerr)}
			}
			return nil, last, delay, nil // the stream ended or broke: resume if it can be
		}
		if evt.id != "" {
			last = evt.id
		}
		if evt.retry != "" { // ParseInt("") would allocate its error on every event
			if n, err := strconv.ParseInt(evt.retry, 10, 64); err == nil {
				delay = time.Duration(n) * time.Millisecond
			}
		}
		if len(evt.data) == 0 || (evt.name != "" && evt.name != "message") {
			continue
		}
		a, err := c.handleMessage(ctx, &hreq.reqs, shallowFor(want, evt.data), want)
		if err != nil {
			return nil, "", 0, connFailure{fmt.Errorf("%s: failed to decode event: %v", summary, err)}
		}
		if a != nil {
			hreq.finishAnswered(resp.Body, src.ended)
			return a, "", 0, nil
		}
	}
}

// streamGrace bounds how long a posted call's stream, done with, is read
// for the server to end it: a stream read to its end lets the connection be
// reused, and a server ends it right after the response, but closing it is
// only a SHOULD. As go-sdk does, the call's answer goes on first
// (finishAnswered); a stream still open after this long is closed unread
// (its connection is not reused).
const streamGrace = 100 * time.Millisecond

// finishStream reads what is left of a response stream, for at most
// streamGrace, and closes it. Closing the body from the timer ends a read
// in progress.
func finishStream(body io.ReadCloser) {
	cut := time.AfterFunc(streamGrace, func() { body.Close() })
	_, _ = io.Copy(io.Discard, body)
	cut.Stop()
	body.Close()
}

// errEventTooLarge is an event over the message limit: go-sdk fails the
// stream rather than skip part of it.
var errEventTooLarge = errors.New("SSE event exceeded the message size limit without terminating")

// nextEvent reads lines up to the blank line that ends an event. The end
// of the stream (io.EOF, not a broken read) ends the last event too, as
// go-sdk reads it: a server that closes its stream right after the
// response's data line has its response taken.
func (c *Conn) nextEvent(r *bufio.Reader) (sseEvent, error) {
	var evt sseEvent
	size, limit := 0, c.maxMessage()
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			line = bytes.Clone(line) // once: ReadSlice's line is the reader's buffer
		}
		for errors.Is(err, bufio.ErrBufferFull) {
			var more []byte
			more, err = r.ReadSlice('\n')
			line = append(line, more...)
			if len(line) > limit {
				return evt, errEventTooLarge
			}
		}
		eof := errors.Is(err, io.EOF)
		if err != nil && !eof {
			return evt, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if !evt.empty() {
				return evt, nil
			}
			if eof {
				return evt, err
			}
			continue
		}
		if size += len(line); size > limit {
			return evt, errEventTooLarge
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "": // a comment
		case "event":
			evt.name = string(value)
		case "id":
			evt.id = string(value)
		case "retry":
			evt.retry = string(value)
		case "data":
			if evt.data != nil {
				evt.data = append(evt.data, '\n')
			}
			evt.data = append(evt.data, value...)
		}
		if eof {
			if !evt.empty() {
				return evt, nil
			}
			return evt, err
		}
	}
}

// resume opens the stream again after lastID, waiting the server's delay
// (or go-sdk's backoff) first and retrying a failed GET as go-sdk does.
// ctx is the call's; the GET is made in hctx, the call's request context.
func (c *Conn) resume(ctx, hctx context.Context, lastID string, delay time.Duration) (*http.Response, error) {
	if delay <= 0 {
		delay = backoff(1)
	}
	var last error
	for attempt := 1; attempt <= resumeRetries; attempt++ {
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-c.life.Done():
			t.Stop()
			return nil, errors.New("connection closed by client during reconnect")
		case <-t.C:
		}
		req, err := http.NewRequestWithContext(hctx, http.MethodGet, c.poster.url, nil)
		if err != nil {
			return nil, err
		}
		c.sessionHeaders(req.Header)
		req.Header.Set("Last-Event-ID", lastID)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.poster.client.Do(req)
		if err == nil {
			return resp, nil
		}
		last, delay = err, backoff(attempt+1)
	}
	return nil, fmt.Errorf("connection failed after %d attempts: %w", resumeRetries, last)
}

// backoff is go-sdk's reconnect delay for an attempt: exponential, capped,
// with full jitter.
func backoff(attempt int) time.Duration {
	d := time.Duration(float64(resumeInitialDelay) * math.Pow(resumeGrowFactor, float64(attempt-1)))
	d = min(d, resumeMaxDelay)
	return d + rand.N(d)
}
