package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
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
	waiting map[string]chan *jsonrpc.Response // by id; guarded by mu
	err     error                             // why done was closed; guarded by mu
}

func newRawConn(conn mcp.Connection) *rawConn {
	return &rawConn{Connection: conn, done: make(chan struct{}), waiting: map[string]chan *jsonrpc.Response{}}
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
	var key string
	if json.Unmarshal(rawID, &key) != nil || !strings.HasPrefix(key, rawIDPrefix) {
		return false
	}
	id, err := jsonrpc.MakeID(key)
	if err != nil {
		return false
	}
	c.deliver(key, &jsonrpc.Response{ID: id, Result: result})
	return true
}

// deliver hands resp to the call waiting for key, if any.
func (c *rawConn) deliver(key string, resp *jsonrpc.Response) {
	c.mu.Lock()
	ch := c.waiting[key]
	delete(c.waiting, key)
	c.mu.Unlock()
	if ch != nil {
		ch <- resp // buffered: never blocks the reader
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
		if !ok || !strings.HasPrefix(key, rawIDPrefix) {
			return msg, nil
		}
		c.deliver(key, resp)
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
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	key := rawIDPrefix + strconv.FormatInt(c.next.Add(1), 10)
	id, err := jsonrpc.MakeID(key)
	if err != nil {
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, method, c.err)
	}
	c.waiting[key] = ch
	c.mu.Unlock()
	if err := c.Connection.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		c.forget(key)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w", method, err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, fmt.Errorf("calling %q: %w", method, resp.Error)
		}
		return resp.Result, nil
	case <-ctx.Done():
		c.giveUp(ctx, key, id, ctx.Err())
		return nil, ctx.Err()
	case <-expired:
		c.giveUp(ctx, key, id, context.DeadlineExceeded)
		return nil, context.DeadlineExceeded
	case <-closing:
		c.giveUp(ctx, key, id, ErrClosedInFlight)
		return nil, ErrClosedInFlight
	case <-c.done:
		c.forget(key)
		c.mu.Lock()
		why := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, method, why)
	}
}

// giveUp forgets the call key and tells the upstream, while the
// connection is open, that its caller gave it up.
func (c *rawConn) giveUp(ctx context.Context, key string, id jsonrpc.ID, why error) {
	c.mu.Lock()
	delete(c.waiting, key)
	open := c.err == nil
	if open {
		c.notes.Add(1) // under mu, before fail: Close's Wait sees it
	}
	c.mu.Unlock()
	if open {
		go c.cancelled(context.WithoutCancel(ctx), id, why)
	}
}

func (c *rawConn) forget(key string) {
	c.mu.Lock()
	delete(c.waiting, key)
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
