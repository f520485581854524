package upstream

import (
	"context"
	"io"
)

// A posted call returns its answer as soon as it has read it; the rest of
// its stream is read off the caller's path. A go-sdk server writes the
// chunked terminator after the response, from its handler's goroutine once
// the response is sent, and at one call in flight it often comes in a read
// of its own, which the caller used to wait for (docs/guides/performance.md,
// "An HTTP upstream's stream end off the caller's path"). The stream must
// still be read to its end for its connection to be kept, and net/http cuts
// a response whose request context ends: the caller's context ends with the
// client's own request, so the POST runs in a context of its own, cancelled
// with the call's until the call has its answer.

// postedRequest is the context of a posted call's HTTP requests.
type postedRequest struct {
	ctx       context.Context
	cancel    context.CancelFunc
	stop      func() bool // stops the call's ctx from cancelling ctx
	handedOff bool        // the stream's finish owns cancel
	// reqs are the server's requests on the call's stream, answered for
	// the call's client (httpstream.go); its cancels map is made by the
	// first request, as most calls get none.
	reqs serverRequests
}

// detachedRequest gives a call made in ctx its request context: ctx's
// values, cancelled when ctx ends until the call has its answer.
func detachedRequest(ctx context.Context) *postedRequest {
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &postedRequest{ctx: hctx, cancel: cancel, stop: context.AfterFunc(ctx, cancel)}
}

// end releases the request context when the call returns, unless the
// stream's finish has taken it over.
func (p *postedRequest) end() {
	if !p.handedOff {
		p.stop()
		p.cancel()
	}
}

// finishAnswered finishes the stream of an answered call without holding
// the caller: when the body has already returned its end (ended, from
// sourceEnd), what is left is
// buffered and read now; otherwise a goroutine reads the rest, bounded by
// streamGrace (finishStream), and then ends the request context. The
// call's ctx no longer cuts the stream.
func (p *postedRequest) finishAnswered(body io.ReadCloser, ended bool) {
	p.stop()
	if ended {
		_, _ = io.Copy(io.Discard, body)
		body.Close()
		return
	}
	p.handedOff = true
	go func() {
		defer p.cancel()
		finishStream(body)
	}()
}
