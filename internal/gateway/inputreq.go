package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A legacy upstream asks for sampling, elicitation or roots with a request
// of its own in the middle of a call, and waits for the answer. A client on
// 2026-07-28 cannot receive such a request: it gets an input-required result
// instead, and answers by retrying its call. weft bridges the two by parking
// the upstream call: the call goes on in the background, each request the
// upstream sends becomes an input-required result whose request state names
// the parked call, and the client's retry delivers the answer to the waiting
// upstream request and waits for what the upstream does next.

// parkPrefix marks request states weft minted; any other state belongs to
// the upstream and is passed back to it.
const parkPrefix = "weft-parked:"

// parkTimeout bounds a call that was parked, from its start: how long it
// may wait for its client's answers.
const parkTimeout = 10 * time.Minute

// ask is one upstream request waiting for the client's answer.
type ask struct {
	params mcp.InputRequest
	answer chan mcp.InputResponse
}

// parkedCall is one upstream call made for a 2026-07-28 client.
type parkedCall struct {
	asks    chan ask
	done    chan struct{}
	result  any
	err     error
	cancel  context.CancelFunc
	started time.Time
	// expiry cancels the call parkTimeout after its start, once it has
	// been parked: a call that never parks ends with the request that
	// made it, and needs no timer (most calls).
	expiry  *time.Timer
	pending *ask // the request the client was last asked
	n       int  // input requests issued, to key them
	// slot is the raw slot of the request that started the call, if
	// any: a retry (which go-sdk answers) gets the typed result instead.
	slot *rawSlot

	mu  sync.Mutex
	cur *waiting // the client request now waiting on the call, if any
	// first is the request that started the call, kept here so that
	// starting a call allocates one waiting less.
	first waiting
}

// waiting is a client request waiting on a parked call: the call's progress
// and log messages travel on it (on 2026-07-28 each request is its own
// session, and the one that started the call has ended).
type waiting struct {
	ss  *mcp.ServerSession
	ctx context.Context
}

// current returns the client request waiting on the call, if any.
func (pc *parkedCall) current() *waiting {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.cur
}

func (pc *parkedCall) setCurrent(w *waiting) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.cur = w
}

// parking is the face's table of parked calls, keyed by request state.
type parking struct {
	mu    sync.Mutex
	calls map[string]*parkedCall
}

// askInput hands one upstream request to the parked call in ctx, to be put
// to the client as an input-required result, and waits for the answer.
func askInput[R mcp.InputResponse](ctx context.Context, pc *parkedCall, params mcp.InputRequest) (R, error) {
	var zero R
	if pc == nil {
		return zero, errors.New("the client speaks 2026-07-28 and this request cannot be put to it as an input-required result")
	}
	a := ask{params: params, answer: make(chan mcp.InputResponse, 1)}
	select {
	case pc.asks <- a:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	select {
	case res := <-a.answer:
		r, ok := res.(R)
		if !ok {
			return zero, fmt.Errorf("the client answered %T where %T was asked", res, zero)
		}
		return r, nil
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// start runs call in the background, for a client that takes
// input-required results, and waits for its first outcome.
func (pk *parking) start(ctx context.Context, ss *mcp.ServerSession, call func(context.Context, *parkedCall) (any, error)) (any, error) {
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	pc := &parkedCall{asks: make(chan ask), done: make(chan struct{}), cancel: cancel, started: time.Now(), slot: rawSlotFrom(ctx),
		first: waiting{ss: ss, ctx: ctx}}
	pc.setCurrent(&pc.first)
	go func() {
		defer close(pc.done)
		growStack()
		pc.result, pc.err = call(bg, pc)
	}()
	return pk.wait(ctx, pc)
}

// resume answers the parked call named by state and waits for its next
// outcome. ok is false when state is not weft's.
func (pk *parking) resume(ctx context.Context, ss *mcp.ServerSession, state string, answers mcp.InputResponseMap) (res any, err error, ok bool) {
	if !strings.HasPrefix(state, parkPrefix) {
		return nil, nil, false
	}
	pk.mu.Lock()
	pc := pk.calls[state]
	delete(pk.calls, state)
	pk.mu.Unlock()
	if pc == nil {
		return nil, errors.New("the call this answer belongs to has ended or expired; call the tool again"), true
	}
	answer, found := answers[fmt.Sprint(pc.n)]
	if !found {
		pc.cancel()
		return nil, fmt.Errorf("the retry carries no answer to input request %d; call the tool again", pc.n), true
	}
	pc.setCurrent(&waiting{ss: ss, ctx: ctx})
	pc.pending.answer <- answer
	res, err = pk.wait(ctx, pc)
	if err == nil {
		res, err = pc.slot.typed(res)
	}
	return res, err, true
}

// wait returns the call's result, or parks it and returns an input-required
// result when the upstream asks for input first. A client that gives up
// waiting ends the call.
func (pk *parking) wait(ctx context.Context, pc *parkedCall) (any, error) {
	defer pc.setCurrent(nil)
	select {
	case <-pc.done:
		pc.cancel()
		return pc.result, pc.err
	case a := <-pc.asks:
		pc.n++
		pc.pending = &a
		state, err := pk.park(pc)
		if err != nil {
			pc.cancel()
			return nil, err
		}
		return &inputRequest{id: fmt.Sprint(pc.n), params: a.params, state: state}, nil
	case <-ctx.Done():
		pc.cancel()
		return nil, ctx.Err()
	}
}

// park stores pc under a fresh request state until the client answers, or
// for parkTimeout after the call ends, and bounds the call (expiry).
func (pk *parking) park(pc *parkedCall) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mint request state: %w", err)
	}
	if pc.expiry == nil {
		pc.expiry = time.AfterFunc(parkTimeout-time.Since(pc.started), pc.cancel)
	}
	state := parkPrefix + hex.EncodeToString(b[:])
	pk.mu.Lock()
	if pk.calls == nil {
		pk.calls = map[string]*parkedCall{}
	}
	pk.calls[state] = pc
	pk.mu.Unlock()
	go func() {
		// A call that ends while its client is answering (the upstream
		// gave up, or failed) keeps its outcome for the client's retry.
		<-pc.done
		time.AfterFunc(parkTimeout, func() {
			pk.mu.Lock()
			delete(pk.calls, state)
			pk.mu.Unlock()
		})
	}()
	return state, nil
}

// inputRequest is what wait returns when the upstream asked for input: the
// caller turns it into an input-required result of its own kind.
type inputRequest struct {
	id     string
	params mcp.InputRequest
	state  string
}

func (r *inputRequest) requests() mcp.InputRequestMap { return mcp.InputRequestMap{r.id: r.params} }

// relayed runs one forwarded request for a client on 2026-07-28: a retry
// that answers a parked call resumes it; any other request runs as a new
// parked call. It returns the upstream's result, or the input request to put
// to the client.
func relayed[R any](ctx context.Context, pk *parking, ss *mcp.ServerSession, state string, answers mcp.InputResponseMap, call func(context.Context, *parkedCall) (R, error)) (R, *inputRequest, error) {
	out, err, ok := pk.resume(ctx, ss, state, answers)
	if !ok {
		out, err = pk.start(ctx, ss, func(ctx context.Context, pc *parkedCall) (any, error) { return call(ctx, pc) })
	}
	var zero R
	if err != nil {
		return zero, nil, err
	}
	if ir, isAsk := out.(*inputRequest); isAsk {
		return zero, ir, nil
	}
	res, _ := out.(R)
	return res, nil, nil
}
