package upstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InputRelay is implemented by a peer whose client takes input-required
// results itself (it speaks 2026-07-28): such results are passed to it as
// they are, and its retry carries the answers back (WithInputResponses). For
// any other peer weft answers an upstream's input requests by asking the
// peer the classic way and retries the upstream call itself.
type InputRelay interface {
	RelaysInputRequests() bool
}

// relaysInputs reports whether peer takes input-required results itself.
func relaysInputs(peer Peer) bool {
	r, ok := peer.(InputRelay)
	return ok && r.RelaysInputRequests()
}

type inputsKey struct{}

type inputs struct {
	responses mcp.InputResponseMap
	state     string
}

// WithInputResponses carries a client's answers to an earlier input-required
// result, and the request state it echoes, to the upstream call made in ctx.
func WithInputResponses(ctx context.Context, responses mcp.InputResponseMap, state string) context.Context {
	if responses == nil && state == "" {
		return ctx
	}
	return context.WithValue(ctx, inputsKey{}, inputs{responses, state})
}

func inputsFrom(ctx context.Context) inputs {
	in, _ := ctx.Value(inputsKey{}).(inputs)
	return in
}

// maxInputRounds bounds how many input-required rounds weft answers for one
// call, as the SDK does for its own clients.
const maxInputRounds = 10

// errInputLoop ends a call whose server keeps asking for input.
var errInputLoop = errors.New("the server asked for input more than 10 times for one call")

// roundTrip makes an upstream call, and while the server answers with input
// requests that the peer does not take itself, asks the peer for each answer
// the classic way and retries with the answers and the server's state.
// call makes one attempt; need extracts a result's input requests and state.
func roundTrip[R any](ctx context.Context, peer Peer, call func(mcp.InputResponseMap, string) (R, error), need func(R) (mcp.InputRequestMap, string)) (R, error) {
	in := inputsFrom(ctx)
	for round := 0; ; round++ {
		res, err := call(in.responses, in.state)
		if err != nil || relaysInputs(peer) {
			return res, err
		}
		reqs, state := need(res)
		if reqs == nil {
			return res, nil
		}
		if round >= maxInputRounds {
			var zero R
			return zero, errInputLoop
		}
		if len(reqs) == 0 {
			var zero R
			return zero, errors.New("the server is busy (input-required result without requests); retry later")
		}
		answers, err := answerInputs(ctx, peer, reqs)
		if err != nil {
			var zero R
			return zero, err
		}
		in = inputs{answers, state}
	}
}

// answerInputs asks peer for each input request, one at a time (a client
// answers a person's questions in order).
func answerInputs(ctx context.Context, peer Peer, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	if peer == nil {
		return nil, ErrNoPeer
	}
	out := make(mcp.InputResponseMap, len(reqs))
	for id, r := range reqs {
		var (
			res mcp.InputResponse
			err error
		)
		switch p := r.(type) {
		case *mcp.ElicitParams:
			res, err = elicit(ctx, peer, p)
		case *mcp.CreateMessageWithToolsParams:
			res, err = peer.CreateMessage(ctx, p)
		case *mcp.CreateMessageParams:
			res, err = peer.CreateMessage(ctx, withTools(p))
		case *mcp.ListRootsParams:
			res, err = peer.ListRoots(ctx, p)
		default:
			err = fmt.Errorf("unknown kind of input request %T", r)
		}
		if err != nil {
			return nil, fmt.Errorf("input request %q: %w", id, err)
		}
		out[id] = res
	}
	return out, nil
}

// withTools converts the single-content sampling request to the form the
// peer relays.
func withTools(p *mcp.CreateMessageParams) *mcp.CreateMessageWithToolsParams {
	msgs := make([]*mcp.SamplingMessageV2, 0, len(p.Messages))
	for _, m := range p.Messages {
		msgs = append(msgs, &mcp.SamplingMessageV2{Content: []mcp.Content{m.Content}, Role: m.Role})
	}
	return &mcp.CreateMessageWithToolsParams{
		Meta: p.Meta, IncludeContext: p.IncludeContext, MaxTokens: p.MaxTokens, Messages: msgs,
		Metadata: p.Metadata, ModelPreferences: p.ModelPreferences, StopSequences: p.StopSequences,
		SystemPrompt: p.SystemPrompt, Temperature: p.Temperature,
	}
}
