package hub

import (
	"context"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/internal/upstream"
)

// do runs one request against server name under every guard (breaker,
// limits, status): a draining or disconnected server is refused at once; an open
// breaker fails fast without taking a concurrency slot; the per-server and
// global limits make the call wait (bounded by its timeout); the call counts
// in flight for its whole duration on every exit path; its outcome feeds
// the breaker.
func (h *Hub) do(ctx context.Context, name string, call func(context.Context, *upstream.Conn) error) error {
	s, err := h.lookup(name)
	if err != nil {
		return err
	}
	if err := s.check(); err != nil {
		return err
	}
	s.mu.Lock()
	br, sem, timeout := s.breaker, s.sem, s.cfg.Timeout()
	s.mu.Unlock()
	probe, err := br.allow()
	if err != nil {
		return err
	}
	callerCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	release, err := h.acquire(ctx, name, sem)
	if err != nil {
		br.record(probe, outcomeIgnored) // weft's own limit, not the server's fault
		return err
	}
	defer release()
	g, err := s.enter()
	if err != nil {
		br.record(probe, outcomeIgnored)
		return err
	}
	defer g.leave()
	err = call(ctx, g.conn)
	if err != nil && callerCtx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within the server's timeout_ms (%v); raise it if the tool is slow: %w", timeout, err)
	}
	br.record(probe, classify(callerCtx, err))
	return err
}

// acquire takes a per-server slot and then a global one, waiting while the
// limits are reached, at most until ctx ends.
func (h *Hub) acquire(ctx context.Context, name string, sem chan struct{}) (release func(), err error) {
	if sem != nil {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: waited for a free call slot (max_concurrent_calls) until the timeout: %w", name, ctx.Err())
		}
	}
	if h.global != nil {
		select {
		case h.global <- struct{}{}:
		case <-ctx.Done():
			if sem != nil {
				<-sem
			}
			return nil, fmt.Errorf("%s: waited for a free call slot (limits.max_concurrent_calls) until the timeout: %w", name, ctx.Err())
		}
	}
	return func() {
		if h.global != nil {
			<-h.global
		}
		if sem != nil {
			<-sem
		}
	}, nil
}
