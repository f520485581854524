package hub

import (
	"context"
	"errors"
	"net"

	"github.com/weft-dev/weft/internal/upstream"
)

// do runs one request against server name under every guard (breaker,
// limits, status): a draining or disconnected server is refused at once; an open
// breaker fails fast without taking a concurrency slot; the per-server and
// global limits make the call wait (bounded by its timeout); the call counts
// in flight for its whole duration on every exit path; its outcome feeds
// the breaker.
func (h *Hub) do(ctx context.Context, name string, call func(context.Context, *upstream.Conn) error) error {
	return named(name, h.guarded(ctx, name, "", call))
}

// doTool is do for a call of tool, whose timeouts count against the tool's
// own breaker (see toolBreakers).
func (h *Hub) doTool(ctx context.Context, name, tool string, call func(context.Context, *upstream.Conn) error) error {
	return named(name, h.guarded(ctx, name, tool, call))
}

// guarded is do without the server's name on its errors; tool is empty
// unless the request is a tool call.
func (h *Hub) guarded(ctx context.Context, name, tool string, call func(context.Context, *upstream.Conn) error) error {
	s, err := h.lookup(name)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	s.mu.Lock()
	br, tools, sem, timeout := s.breaker, s.tools, s.sem, s.cfg.Timeout()
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
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if err := h.acquire(ctx, sem); err != nil {
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
	err = call(ctx, conn)
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
// limits are reached, at most until ctx ends.
func (h *Hub) acquire(ctx context.Context, sem chan struct{}) error {
	if err := takeSlot(ctx, sem, "max_concurrent_calls"); err != nil {
		return err
	}
	if err := takeSlot(ctx, h.global, "limits.max_concurrent_calls"); err != nil {
		if sem != nil {
			<-sem
		}
		return err
	}
	return nil
}

// takeSlot takes a slot of sem (none when sem is nil), waiting while ctx
// lasts. A free slot is taken without a select on ctx: the common case
// costs one non-blocking send.
func takeSlot(ctx context.Context, sem chan struct{}, limit string) error {
	if sem == nil {
		return nil
	}
	select {
	case sem <- struct{}{}:
		return nil
	default:
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
