package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// settleMax bounds how long a finished call waits for the notifications read
// before its result to be relayed.
const settleMax = time.Second

// noteOrder keeps an upstream's progress and log notifications ahead of the
// result they precede. The SDK hands a result to its caller the moment it is
// read, while the notifications read just before it still wait in the
// session's handler queue: relayed after weft answered its client, the last
// progress or log message of a call would reach the client too late (a
// client stops listening for a request's progress once it has the result).
// So the transport counts these notifications as they are read, a receiving
// middleware counts them once relayed, and a finished call waits until the
// second count has caught up with the first.
// TestSDKResultOvertakesItsNotifications reproduces the SDK behaviour and
// fails once it changes, so this workaround can be deleted then.
//
// Stdio connections are counted as their lines are read; HTTP and SSE ones as
// their event streams are read, by the line check shallowBody puts on every
// stream go-sdk reads (wrapping the SDK's HTTP connections would hide the
// unexported hooks it relies on).
type noteOrder struct {
	mu       sync.Mutex
	read     uint64
	relayed  uint64
	progress chan struct{} // closed and replaced whenever relayed advances
	// readFailed is set when reading the connection failed, before the SDK
	// fails the requests in flight with that error (see Conn.Broken).
	readFailed atomic.Bool
}

func newNoteOrder() *noteOrder { return &noteOrder{progress: make(chan struct{})} }

// ordered reports whether method is a notification whose order matters.
func ordered(method string) bool {
	return method == "notifications/progress" || method == "notifications/message"
}

func (o *noteOrder) gotRead() {
	o.mu.Lock()
	o.read++
	o.mu.Unlock()
}

func (o *noteOrder) gotRelayed() {
	o.mu.Lock()
	o.relayed++
	close(o.progress)
	o.progress = make(chan struct{})
	o.mu.Unlock()
}

// settle waits until every counted notification read so far was relayed, at
// most settleMax or until ctx ends. A notification the SDK dropped before the
// middleware (malformed params) is never relayed: on timeout the counts are
// brought level so that one such message costs one wait, not every one.
func (o *noteOrder) settle(ctx context.Context) {
	if o == nil {
		return
	}
	o.mu.Lock()
	target := o.read
	o.mu.Unlock()
	var timer *time.Timer // made only when there is something to wait for: usually nothing is
	for {
		o.mu.Lock()
		if o.relayed >= target {
			o.mu.Unlock()
			return
		}
		ch := o.progress
		o.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(settleMax)
			defer timer.Stop()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			o.mu.Lock()
			o.relayed = max(o.relayed, target)
			o.mu.Unlock()
			return
		}
	}
}

// middleware counts each ordered notification once its handler (the relay)
// has returned.
func (o *noteOrder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if ordered(method) {
			o.gotRelayed()
		}
		return res, err
	}
}

// countingTransport notes when reading its connection failed (see
// noteOrder.readFailed); a stdio connection's notifications are counted as
// its lines are read (stdioLine).
type countingTransport struct {
	mcp.Transport
	order *noteOrder
}

func (t countingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{Connection: conn, order: t.order}, nil
}

type countingConn struct {
	mcp.Connection
	order *noteOrder
}

func (c countingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.order.readFailed.Store(true)
	}
	return msg, err
}

// stdioLine is what a stdio connection's line filter does with each
// message line before the SDK reads it: a response to one of weft's own
// calls goes to its caller (rawConn.take), and an ordered notification is
// counted. Both happen in the order of the lines, so a raw call's result
// never overtakes the count of the notifications read before it.
func stdioLine(raw *rawConn, order *noteOrder) func(msg []byte) bool {
	return func(msg []byte) bool {
		if raw.take(msg) {
			return true
		}
		order.count(msg)
		return false
	}
}

// count counts msg when it is an ordered notification. It must see the
// method go-sdk will decode: a line that spells it with escapes (PHP's
// json_encode writes "notifications\/progress") is decoded too, or the
// notification would be relayed uncounted and let a later result overtake
// its own.
// A line that is a JSON array is a batch, whose notifications go-sdk
// relays one by one: each is counted.
func (o *noteOrder) count(msg []byte) {
	if !mayBeOrdered(msg) {
		return
	}
	if b := bytes.TrimLeft(msg, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		var batch []noteHead
		if json.Unmarshal(b, &batch) == nil {
			for _, m := range batch {
				o.countOne(m)
			}
		}
		return
	}
	var m noteHead
	if json.Unmarshal(msg, &m) == nil {
		o.countOne(m)
	}
}

// noteHead is what count reads of a message.
type noteHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// countOne counts m when it is an ordered notification.
func (o *noteOrder) countOne(m noteHead) {
	if (m.ID == nil || string(m.ID) == "null") && ordered(m.Method) {
		o.gotRead()
	}
}

// mayBeOrdered reports whether msg can hold an ordered notification's
// method: written plainly, or beside a "method" key with an escaped slash
// or \u escapes (a result, which holds no "method" key, is not decoded for
// the escapes in its text).
func mayBeOrdered(msg []byte) bool {
	if bytes.Contains(msg, []byte("notifications/")) {
		return true
	}
	return bytes.Contains(msg, []byte(`"method"`)) &&
		(bytes.Contains(msg, []byte(`notifications\/`)) || bytes.Contains(msg, []byte(`\u`)))
}

// maxCountedLine bounds the event-stream lines searched for a method:
// progress and log notifications are small, and a longer line is only ever
// a result (a page of tools) or a large log message (which then costs one
// settle).
const maxCountedLine = 1 << 20
