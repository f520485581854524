package upstream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Peer is the downstream client on whose behalf weft calls an upstream. An
// upstream's server-to-client traffic during that call (progress, logs,
// sampling, elicitation, roots) is relayed to it.
type Peer interface {
	CreateMessage(ctx context.Context, p *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	ListRoots(ctx context.Context, p *mcp.ListRootsParams) (*mcp.ListRootsResult, error)
	NotifyProgress(ctx context.Context, p *mcp.ProgressNotificationParams) error
	Log(ctx context.Context, p *mcp.LoggingMessageParams) error
}

// Ephemeral is implemented by a Peer whose session ends with the request
// that made the call (a stateless HTTP request's): nothing reaches it after
// the result, so the router forgets such a call at once instead of keeping
// it, and the session it holds, for progressGrace.
type Ephemeral interface{ Ephemeral() bool }

func ephemeral(p Peer) bool {
	e, ok := p.(Ephemeral)
	return ok && e.Ephemeral()
}

// ErrNoPeer is returned to an upstream that asks for sampling, elicitation or
// roots while no client is waiting on it.
var ErrNoPeer = errors.New("no client is waiting on this server")

type peerKey struct{}

// peerBox carries the peer in a context so that "no peer" (nil) stays
// distinguishable from "not linked to a call".
type peerBox struct{ peer Peer }

func withPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, peerBox{p})
}

// progressGrace is how long a finished call's progress token stays mapped.
const progressGrace = 2 * time.Second

// maxRetired bounds the answered calls kept for progressGrace. The progress
// and log messages an upstream sends before its result are relayed before
// the call is retired (noteOrder.settle), so a retired call only catches
// what trails the result, or comes on another stream: every test of
// forwarding, ordering and conformance passes with no retired call at all.
// Kept by time alone, a busy connection held every call of the last two
// seconds (thousands, each with its request's context: tens of MB); the
// newest few keep a trailing message's client without that.
const maxRetired = 32

// call is one request in flight to the upstream on behalf of a peer.
type call struct {
	id            int64 // weft's progress token for it
	peer          Peer
	progressToken any // the peer's own token, nil when it asked for none
	// ctx carries the values of the peer's own request: relayed
	// notifications are sent with them (values, never its cancellation),
	// so that they travel with that request (on Streamable HTTP, on its
	// stream).
	ctx  context.Context
	done bool // the upstream answered; kept for trailing notifications
	// cancel ends the call's own context when the connection closes
	// under it (closeAll); nil for a call that ends by itself then.
	cancel context.CancelCauseFunc
}

// router correlates an upstream's server-to-client messages with the
// downstream call that caused them. Progress is exact (weft mints its own
// tokens); requests without a token go to the most recent call in flight,
// which is exact whenever one client at a time uses the server.
type router struct {
	mu      sync.Mutex
	next    int64
	calls   map[int64]*call
	recent  []int64   // ids of calls in flight, oldest first
	retired []retired // answered calls still mapped, oldest first, from head
	head    int
	closed  bool // closeAll ran: a call begun now is cancelled at once
}

// retired is a call answered at a time; it is forgotten progressGrace
// later, by the next router operation rather than by a timer of its own.
type retired struct {
	id int64
	at time.Time
}

func newRouter() *router { return &router{calls: map[int64]*call{}} }

// start registers a call made in ctx, which cancel ends, and returns it
// with weft's token for it (its id); end retires it. The router holds every
// call's cancel so that closing the connection ends the calls in flight
// (closeAll) without each call registering on the connection's life; a
// nil cancel is a call that ends by itself when the connection closes
// (a raw stdio call).
func (r *router) start(ctx context.Context, peer Peer, progressToken any, cancel context.CancelCauseFunc) *call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed && cancel != nil {
		cancel(ErrClosedInFlight)
	}
	r.expire()
	r.next++
	c := &call{id: r.next, peer: peer, progressToken: progressToken, ctx: ctx, cancel: cancel}
	r.calls[c.id] = c
	r.recent = append(r.recent, c.id)
	return c
}

// end retires a call start registered.
func (r *router) end(c *call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.done = true
	if ephemeral(c.peer) {
		delete(r.calls, c.id)
	} else {
		// Notifications sent just before the result may be handled
		// after it: keep the token mapping a little longer.
		r.retired = append(r.retired, retired{c.id, time.Now()})
		r.expire()
	}
	for i, v := range r.recent {
		if v == c.id {
			r.recent = append(r.recent[:i], r.recent[i+1:]...)
			break
		}
	}
}

// values is the call's request context without its cancellation.
func (c *call) values() context.Context { return context.WithoutCancel(c.ctx) }

// closeAll cancels the calls in flight with ErrClosedInFlight, and any
// call begun after it at once: the connection is closed.
func (r *router) closeAll() {
	r.mu.Lock()
	r.closed = true
	var cancels []context.CancelCauseFunc
	for _, c := range r.calls {
		if !c.done && c.cancel != nil {
			cancels = append(cancels, c.cancel)
		}
	}
	r.mu.Unlock()
	for _, cancel := range cancels {
		cancel(ErrClosedInFlight)
	}
}

// expire forgets the calls answered more than progressGrace ago, and the
// oldest beyond maxRetired; r.mu is held.
func (r *router) expire() {
	cutoff := time.Now().Add(-progressGrace)
	for r.head < len(r.retired) && (r.retired[r.head].at.Before(cutoff) || len(r.retired)-r.head > maxRetired) {
		delete(r.calls, r.retired[r.head].id)
		r.head++
	}
	// Compact once half is forgotten: amortized O(1) per call.
	if r.head > 0 && 2*r.head >= len(r.retired) {
		r.retired = append(r.retired[:0], r.retired[r.head:]...)
		r.head = 0
	}
}

// byToken finds the call that weft's progress token belongs to.
func (r *router) byToken(token any) (*call, bool) {
	id, ok := tokenID(token)
	if !ok {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire()
	c, ok := r.calls[id]
	return c, ok
}

// peerFor picks the peer for a server-to-client request, and the context to
// send it in: the one carried in ctx when the SDK links it to a call, else
// the newest call in flight. The request is sent with the values of that
// call's own request, so that on Streamable HTTP it travels on the stream of
// the client's request rather than on the optional standalone stream, which
// the client may not have opened (yet).
func (r *router) peerFor(ctx context.Context) (Peer, context.Context, error) {
	if box, ok := ctx.Value(peerKey{}).(peerBox); ok {
		// The request is linked to a call: never hand it to another
		// client's call, even when this one has no client (plans, agent).
		if box.peer == nil {
			return nil, ctx, ErrNoPeer
		}
		return box.peer, ctx, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.recent) - 1; i >= 0; i-- {
		if c := r.calls[r.recent[i]]; c != nil && c.peer != nil {
			return c.peer, linkedCtx{Context: ctx, values: c.values()}, nil
		}
	}
	return nil, ctx, ErrNoPeer
}

// tokenID converts a progress token as decoded from JSON back to weft's id.
func tokenID(token any) (int64, bool) {
	switch v := token.(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64:
		if v != math.Trunc(v) {
			return 0, false
		}
		return int64(v), true
	case string:
		var id int64
		_, err := fmt.Sscanf(v, "%d", &id)
		return id, err == nil
	}
	return 0, false
}
