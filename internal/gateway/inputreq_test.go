package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestParkedCallRoundTrip checks the bridge for a 2026-07-28 client: an
// upstream request in the middle of a call becomes an input-required result,
// the client's retry delivers the answer to the waiting request, and the
// call's result comes back on that retry.
func TestParkedCallRoundTrip(t *testing.T) {
	var pk parking
	ctx := context.Background()
	call := func(ctx context.Context, pc *parkedCall) (string, error) {
		res, err := askInput[*mcp.ElicitResult](ctx, pc, &mcp.ElicitParams{Message: "name?"})
		if err != nil {
			return "", err
		}
		return "hello " + res.Content["name"].(string), nil
	}
	res, ask, err := relayed(ctx, &pk, nil, "", nil, call)
	if err != nil || ask == nil || res != "" {
		t.Fatalf("first round: %q %v %v, want an input request", res, ask, err)
	}
	if !strings.HasPrefix(ask.state, parkPrefix) || ask.requests()[ask.id].(*mcp.ElicitParams).Message != "name?" {
		t.Fatalf("input request %+v does not carry the upstream's request and weft's state", ask)
	}
	answers := mcp.InputResponseMap{ask.id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}
	res, ask2, err := relayed(ctx, &pk, nil, ask.state, answers, call)
	if err != nil || ask2 != nil || res != "hello Ada" {
		t.Fatalf("retry: %q %v %v, want the call's result", res, ask2, err)
	}
	if _, _, err := relayed(ctx, &pk, nil, ask.state, answers, call); err == nil || !strings.Contains(err.Error(), "ended or expired") {
		t.Errorf("a second retry with the same state: %v, want it refused as ended", err)
	}
}

// TestParkedCallEndsWithoutAnswer checks that a retry without the answer,
// or a client that gives up waiting, ends the parked call (no goroutine is
// left waiting; goleak checks at the end of the package's tests).
func TestParkedCallEndsWithoutAnswer(t *testing.T) {
	var pk parking
	ended := make(chan error, 2)
	call := func(ctx context.Context, pc *parkedCall) (string, error) {
		_, err := askInput[*mcp.ListRootsResult](ctx, pc, &mcp.ListRootsParams{})
		ended <- err
		return "", err
	}
	_, ask, err := relayed(context.Background(), &pk, nil, "", nil, call)
	if err != nil || ask == nil {
		t.Fatalf("want an input request, got %v %v", ask, err)
	}
	if _, _, err := relayed(context.Background(), &pk, nil, ask.state, mcp.InputResponseMap{}, call); err == nil {
		t.Errorf("a retry without the answer was accepted")
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the parked request ended with %v, want cancelled", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	go func() {
		<-started
		cancel()
	}()
	_, _, err = relayed(ctx, &pk, nil, "", nil, func(ctx context.Context, pc *parkedCall) (string, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return "", ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a client that gave up got %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the call went on after its client gave up: %v", err)
	}
}
