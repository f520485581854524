package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk v1.8.0's ClientSession decodes every result into its typed form,
// each value through a fresh 32 KiB decoder, and has no call that hands a
// result back as it came. A tools/call that weft only relays (the face's
// relay, internal/gateway/relay.go) needs the bytes, not the types, so for
// those calls weft sits between the session and its transport: rawConn
// writes the request itself, with an id the session never uses (a string;
// the session's ids are integers), and takes the response for that id out
// of the stream before the session reads it: as a line of the child's
// stdout, before go-sdk's connection decodes it (take), or failing that as
// the message the connection decoded (Read). Everything else passes
// through to the session unchanged. docs/guides/performance.md ("Raw
// results", "weft's own cost per relayed call") has the measurements.
//
// Only stdio connections are wrapped: go-sdk's Streamable HTTP and SSE
// client connections rely on unexported methods (sessionUpdated) that a
// wrapper would hide from the session.

// rawIDPrefix starts the id of every request rawConn writes itself.
const rawIDPrefix = "weft-raw-"

// notifyCancelTimeout bounds the notifications/cancelled sent for a raw
// call its caller gave up, as go-sdk bounds its own.
const notifyCancelTimeout = 5 * time.Second

// rawTransport wraps its transport's connection in conn, a rawConn made
// before the transport so that the stdio line filter can hand it its
// responses (take).
type rawTransport struct {
	mcp.Transport
	conn *rawConn // its Connection is set by Connect
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn.Connection = conn
	return t.conn, nil
}

// rawConnOf is the rawConn a transport made, nil when it is not wrapped.
func rawConnOf(t mcp.Transport) *rawConn {
	if rt, ok := t.(*rawTransport); ok {
		return rt.conn
	}
	return nil
}

// rawConn is an mcp.Connection that also carries weft's own calls.
type rawConn struct {
	mcp.Connection
	next atomic.Int64
	done chan struct{} // closed once the connection failed or was closed
	// notes counts the notifications/cancelled being sent; Close waits
	// for them (closing the connection ends a write that is stuck).
	notes sync.WaitGroup

	mu      sync.Mutex
	waiting map[int64]chan rawReply // by the number in the call's id; guarded by mu
	err     error                   // why done was closed; guarded by mu
}

func newRawConn(conn mcp.Connection) *rawConn {
	return &rawConn{Connection: conn, done: make(chan struct{}), waiting: map[int64]chan rawReply{}}
}

// take hands msg, one message line of a stdio upstream not yet read by the
// SDK, to its caller when it is the result of one of weft's own calls, and
// reports whether it did (a result nobody waits for any more is dropped).
// Taken here, a result is never decoded by go-sdk's connection: no JSON
// decoder with its 32 KiB buffer scans it, readBatch and DecodeMessage do
// not decode it again (each through a fresh 32 KiB buffer), and it skips
// the hand-offs from the connection's reading goroutine to the session's.
// Anything else goes on to the session: other messages, an error response
// (go-sdk reads its fields exactly), one with a key go-sdk would read
// differently, or one nested deeper than go-sdk reads; Read takes those
// responses of weft's calls.
func (c *rawConn) take(msg []byte) bool {
	if !bytes.Contains(msg, []byte(`"`+rawIDPrefix)) {
		return false
	}
	rawID, result, ok := resultResponse(msg)
	if !ok {
		return false
	}
	seq, ours := rawSeqOf(rawID)
	if !ours {
		return false
	}
	c.deliver(seq, rawReply{result: result})
	return true
}

// rawSeqOf reads the number of one of weft's own call ids from its JSON:
// ours reports an id with weft's prefix (whose call, if its number is
// not one weft gave, nobody waits for: seq is then -1). A plain id is read
// in place, anything else decoded as go-sdk would decode it.
func rawSeqOf(rawID []byte) (seq int64, ours bool) {
	if n := len(rawID); n >= 2 && rawID[0] == '"' && rawID[n-1] == '"' && plainASCII(rawID[1:n-1]) {
		return rawSeq(rawID[1 : n-1])
	}
	var key string
	if json.Unmarshal(rawID, &key) != nil {
		return 0, false
	}
	return rawSeq([]byte(key))
}

// rawSeq is rawSeqOf for the id's text.
func rawSeq(key []byte) (seq int64, ours bool) {
	digits, ok := bytes.CutPrefix(key, []byte(rawIDPrefix))
	if !ok {
		return 0, false
	}
	if len(digits) == 0 || len(digits) > 18 {
		return -1, true
	}
	for _, d := range digits {
		if d < '0' || d > '9' {
			return -1, true
		}
		seq = seq*10 + int64(d-'0')
	}
	return seq, true
}

// plainASCII reports printable ASCII with no escapes or quotes.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}

// rawReply is the response to one of weft's own calls.
type rawReply struct {
	result json.RawMessage
	err    error // the upstream's *jsonrpc.Error, when it answered with one
}

// deliver hands reply to the call waiting for seq, if any.
func (c *rawConn) deliver(seq int64, reply rawReply) {
	c.mu.Lock()
	ch := c.waiting[seq]
	delete(c.waiting, seq)
	c.mu.Unlock()
	if ch != nil {
		ch <- reply // buffered: never blocks the reader
	}
	// A response nobody waits for belongs to a call whose caller gave
	// up; the session never knew of it either.
}

// Read hands the session every message but the responses to weft's own
// calls that take left to it, which go to their callers.
func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			c.fail(err)
			return nil, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			return msg, nil
		}
		key, ok := resp.ID.Raw().(string)
		if !ok {
			return msg, nil
		}
		seq, ours := rawSeq([]byte(key))
		if !ours {
			return msg, nil
		}
		c.deliver(seq, rawReply{result: resp.Result, err: resp.Error})
	}
}

// Close fails the calls in flight, then closes the connection.
func (c *rawConn) Close() error {
	c.fail(mcp.ErrConnectionClosed)
	err := c.Connection.Close()
	c.notes.Wait()
	return err
}

// fail ends every call in flight with err, once.
func (c *rawConn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	close(c.done)
}

// call sends method with params and returns the upstream's response, its
// result still raw. Errors are those go-sdk's session returns for the same
// failures: ctx.Err() when ctx ends (the upstream is told the call was
// cancelled), mcp.ErrConnectionClosed when the connection ends, and the
// upstream's *jsonrpc.Error wrapped as go-sdk wraps it; and
// ErrClosedInFlight when closing (the connection's life) ends first: the
// call is then given up as a cancelled one, without a context of its own
// for the connection's Close to cancel. deadline (zero: none) ends it as
// a deadline of ctx would, with context.DeadlineExceeded.
func (c *rawConn) call(ctx context.Context, closing <-chan struct{}, deadline time.Time, method string, params json.RawMessage) (json.RawMessage, error) {
	var expired <-chan time.Time
	if !deadline.IsZero() {
		wait := time.Until(deadline)
		if wait <= 0 {
			return nil, context.DeadlineExceeded // as Write refuses a context past its deadline
		}
		t := deadlineTimers.Get().(*time.Timer)
		t.Reset(wait)
		defer stopDeadline(t)
		expired = t.C
	}
	seq := c.next.Add(1)
	id, err := jsonrpc.MakeID(rawIDPrefix + strconv.FormatInt(seq, 10))
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	ch := replyChans.Get().(chan rawReply)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		replyChans.Put(ch)
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, method, c.err)
	}
	c.waiting[seq] = ch
	c.mu.Unlock()
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		c.forget(seq)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	select {
	case reply := <-ch:
		replyChans.Put(ch)
		if reply.err != nil {
			return nil, fmt.Errorf("calling %q: %w", method, reply.err)
		}
		return reply.result, nil
	case <-ctx.Done():
		c.giveUp(ctx, seq, id, ctx.Err())
		return nil, ctx.Err()
	case <-expired:
		c.giveUp(ctx, seq, id, context.DeadlineExceeded)
		return nil, context.DeadlineExceeded
	case <-closing:
		c.giveUp(ctx, seq, id, ErrClosedInFlight)
		return nil, ErrClosedInFlight
	case <-c.done:
		c.forget(seq)
		c.mu.Lock()
		why := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, method, why)
	}
}

// replyChans holds the channels of weft's own calls for reuse. A call puts
// its channel back only once it received its reply: deliver, the one
// sender, took the channel out of waiting and its send is done, so the
// channel is empty and nobody else holds it. A call that ends otherwise
// leaves its channel to the collector: a reply may still be sent on it.
var replyChans = sync.Pool{New: func() any { return make(chan rawReply, 1) }}

// deadlineTimers holds the stopped timers of weft's own calls' deadlines
// for reuse. Since Go 1.23 a timer's channel holds no stale value once
// Stop returned, so a timer from the pool fires only for its new Reset.
var deadlineTimers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

func stopDeadline(t *time.Timer) {
	t.Stop()
	deadlineTimers.Put(t)
}

// giveUp forgets the call seq and tells the upstream, while the
// connection is open, that its caller gave it up.
func (c *rawConn) giveUp(ctx context.Context, seq int64, id jsonrpc.ID, why error) {
	c.mu.Lock()
	delete(c.waiting, seq)
	open := c.err == nil
	if open {
		c.notes.Add(1) // under mu, before fail: Close's Wait sees it
	}
	c.mu.Unlock()
	if open {
		go c.cancelled(context.WithoutCancel(ctx), id, why)
	}
}

func (c *rawConn) forget(seq int64) {
	c.mu.Lock()
	delete(c.waiting, seq)
	c.mu.Unlock()
}

// cancelled tells the upstream that the call id was given up, best effort,
// off the caller's return path (as go-sdk does for its own calls).
func (c *rawConn) cancelled(ctx context.Context, id jsonrpc.ID, why error) {
	defer c.notes.Done()
	ctx, cancel := context.WithTimeout(ctx, notifyCancelTimeout)
	defer cancel()
	params, err := json.Marshal(&mcp.CancelledParams{RequestID: id.Raw(), Reason: why.Error()})
	if err != nil {
		return
	}
	_ = c.Connection.Write(ctx, &jsonrpc.Request{Method: "notifications/cancelled", Params: params})
}
