package hub

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/weft-dev/weft/internal/upstream"
)

// do runs one request against server name under every guard (breaker,
// limits, status): a draining or disconnected server is refused at once; an open
// breaker fails fast without taking a concurrency slot; the per-server and
// global limits make the call wait (bounded by its timeout); the call counts
// in flight for its whole duration on every exit path; its outcome feeds
// the breaker.
func (h *Hub) do(ctx context.Context, name string, call func(context.Context, *upstream.Conn) error) error {
	return named(name, h.guarded(ctx, name, "", withDeadline(call)))
}

// doTool is do for a call of tool, whose timeouts count against the tool's
// own breaker (see toolBreakers). call is given the server's deadline
// (zero: none) and must end by it, with an error that is or wraps
// context.DeadlineExceeded: a tool call carries it down to the upstream's
// own wait (upstream.Conn.CallToolRawUntil) instead of a context of its own.
func (h *Hub) doTool(ctx context.Context, name, tool string, call deadlineCall) error {
	return named(name, h.guarded(ctx, name, tool, call))
}

// deadlineCall makes a request on conn that ends by deadline (zero: none).
type deadlineCall func(ctx context.Context, conn *upstream.Conn, deadline time.Time) error

// withDeadline is call with the deadline as its context's.
func withDeadline(call func(context.Context, *upstream.Conn) error) deadlineCall {
	return func(ctx context.Context, conn *upstream.Conn, deadline time.Time) error {
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		return call(ctx, conn)
	}
}

// guarded is do without the server's name on its errors; tool is empty
// unless the request is a tool call. The server's timeout counts from
// here: it bounds the wait for a call slot, a per-user instance's start
// and the call, without a context of its own when nothing waits.
func (h *Hub) guarded(ctx context.Context, name, tool string, call deadlineCall) error {
	s, err := h.lookup(name)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	s.mu.Lock()
	br, tools, sem, timeout, perUser := s.breaker, s.tools, s.sem, s.cfg.Timeout(), s.cfg.IsPerUser()
	s.mu.Unlock()
	var tb *breaker
	if tool != "" {
		tb = tools.get(tool)
	}
	v, err := admit(br, tb)
	if err != nil {
		return err
	}
	callerCtx := ctx
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
		if h.opts.Instance != nil && perUser { // the instance's start waits on ctx
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
	}
	if err := h.acquire(ctx, deadline, sem); err != nil {
		v.record(outcomeIgnored, err) // weft's own limit, not the server's fault
		return err
	}
	defer h.release(sem)
	g, err := s.enter()
	if err != nil {
		v.record(outcomeIgnored, err)
		return err
	}
	defer g.leave()
	conn, done, err := h.instance(ctx, name, g.conn)
	if err != nil {
		v.record(outcomeIgnored, err) // the caller's own instance, not the server
		return err
	}
	defer done()
	err = call(ctx, conn, deadline)
	if err != nil && callerCtx.Err() == nil && timedOut(err) {
		err = &timeoutError{limit: timeout, cause: err}
	}
	v.record(g.outcome(callerCtx, err), err)
	if needsLogin(err) && conn == g.conn {
		h.markNeedsLogin(s, g.conn, err)
		return needsLoginError(name)
	}
	return err
}

// instance is the connection a call runs on: the server's own, unless
// Options.Instance gives the caller one of their own.
func (h *Hub) instance(ctx context.Context, name string, own *upstream.Conn) (*upstream.Conn, func(), error) {
	if h.opts.Instance == nil {
		return own, func() {}, nil
	}
	conn, done, err := h.opts.Instance(ctx, name)
	if err != nil || conn == nil {
		return own, func() {}, err
	}
	return conn, done, nil
}

// acquire takes a per-server slot and then a global one, waiting while the
// limits are reached, at most until ctx ends or deadline passes (zero:
// none).
func (h *Hub) acquire(ctx context.Context, deadline time.Time, sem chan struct{}) error {
	if err := takeSlot(ctx, deadline, sem, "max_concurrent_calls"); err != nil {
		return err
	}
	if err := takeSlot(ctx, deadline, h.global, "limits.max_concurrent_calls"); err != nil {
		if sem != nil {
			<-sem
		}
		return err
	}
	return nil
}

// takeSlot takes a slot of sem (none when sem is nil), waiting while ctx
// lasts and deadline has not passed. A free slot is taken without a select
// on ctx: the common case costs one non-blocking send, and no timer.
func takeSlot(ctx context.Context, deadline time.Time, sem chan struct{}, limit string) error {
	if sem == nil {
		return nil
	}
	select {
	case sem <- struct{}{}:
		return nil
	default:
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	select {
	case sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return &slotError{limit: limit, cause: ctx.Err()}
	}
}

// release gives back the slots acquire took.
func (h *Hub) release(sem chan struct{}) {
	if h.global != nil {
		<-h.global
	}
	if sem != nil {
		<-sem
	}
}

// timedOut reports a request ended by the server's timeout: the call's
// deadline, or the HTTP transport's wait for response headers, which is
// bounded by the same timeout_ms.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
