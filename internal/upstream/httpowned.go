package upstream

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// ownedCall is a posted tools/call's own context. One context carries the
// call's deadline, Close's cancel and, when it can, its POST's: the call
// used to make four (the deadline's, begin's own, and the POST's detached
// context with its AfterFunc), each a context, a done channel and a
// registration in its parent's children map. Close's cancel is remembered
// here, as begin's context remembered it as its cause, for the call to
// end with ErrClosedInFlight.
//
// The call's context is detached from the caller's (its values, cancelled
// by an AfterFunc of the caller's until the call has its answer), so that
// it can also be the POST's request context, whose stream is read to its
// end after the call returns (httpfinish.go). That takes a caller's
// context without a deadline of its own: a caller's deadline ends a
// detached context with context.Canceled, not context.DeadlineExceeded,
// and a timeout must read as one. Under a caller's deadline the call's
// context is a child of the caller's, and the POST makes its detached
// context itself (detachedRequest), as before.
type ownedCall struct {
	ctx      context.Context
	cancel   context.CancelFunc
	isClosed atomic.Bool
	// caller and deadline make the rounds' context (roundsContext);
	// rounds is its cancel, for Close.
	caller   context.Context
	deadline time.Time
	mu       sync.Mutex
	rounds   context.CancelFunc
	// req is the POST's request when it shares the call's context
	// (detached); its cancel and stop are the call's.
	req      postedRequest
	detached bool
}

// ownContext is the own context of a call made in ctx and ended by
// deadline (zero: none).
func ownContext(ctx context.Context, deadline time.Time) *ownedCall {
	o := &ownedCall{caller: ctx, deadline: deadline}
	parent := ctx
	if _, bounded := ctx.Deadline(); !bounded {
		o.detached = true
		parent = context.WithoutCancel(ctx)
	}
	if deadline.IsZero() {
		o.ctx, o.cancel = context.WithCancel(parent)
	} else {
		o.ctx, o.cancel = context.WithDeadline(parent, deadline)
	}
	if o.detached {
		o.req = postedRequest{cancel: o.cancel, stop: context.AfterFunc(ctx, o.cancel)}
	}
	return o
}

// request is the POST's request context for a call whose context is ctx
// (own's, with values added): own's own when it is detached (shared: the
// call's release ends it), else one made for the POST, as for a request
// without an owned call (nil: weft's own lists, listToolsRaw).
func (o *ownedCall) request(ctx context.Context) (hreq *postedRequest, shared bool) {
	if o == nil || !o.detached {
		return detachedRequest(ctx), false
	}
	o.req.ctx = ctx
	return &o.req, true
}

// release ends the call's context when the call returns, unless its
// POST's stream finish has taken it over (postedRequest.finishAnswered).
func (o *ownedCall) release() {
	if !o.detached {
		o.cancel()
		return
	}
	o.req.end()
}

// roundsContext is the context of what follows a result that is not
// plain (typedResult's input-required rounds): a detached call's context
// may have been taken over by its POST's stream finish, which no longer
// follows the caller's, so the rounds get one of their own, a child of
// the caller's with the call's deadline, which Close cancels too.
func (o *ownedCall) roundsContext() (context.Context, context.CancelFunc) {
	if !o.detached {
		return o.ctx, func() {}
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if o.deadline.IsZero() {
		ctx, cancel = context.WithCancel(o.caller)
	} else {
		ctx, cancel = context.WithDeadline(o.caller, o.deadline)
	}
	o.mu.Lock()
	o.rounds = cancel
	o.mu.Unlock()
	if o.closed() {
		cancel()
	}
	return ctx, cancel
}

// close is Close's cancel of the call (router.closeAll), with its cause.
func (o *ownedCall) close(cause error) {
	if errors.Is(cause, ErrClosedInFlight) {
		o.isClosed.Store(true)
	}
	o.cancel()
	o.mu.Lock()
	rounds := o.rounds
	o.mu.Unlock()
	if rounds != nil {
		rounds()
	}
}

// closed reports whether Close cancelled the call (false for nil: a
// call without a context of its own).
func (o *ownedCall) closed() bool {
	return o != nil && o.isClosed.Load()
}
