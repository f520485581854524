package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestBrokenConnectionCountsOnceAndReconnectClosesBreaker reproduces the
// oversized-result attack: while three slow calls are in flight, one call's
// answer is a 64 MiB line, which ends the stdio connection and fails every
// call on it. The bystanders' failures must not open the breaker (the loss
// counts once), and the successful reconnect leaves it closed with no
// failures.
func TestBrokenConnectionCountsOnceAndReconnectClosesBreaker(t *testing.T) {
	bin := testutil.GoBinary(t, "github.com/weft-dev/weft/testdata/misbehave", "misbehave")
	h := newHub(t, hub.Options{BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	cfg := &config.Server{Name: "s", Type: config.TransportStdio, Target: bin,
		Args: []string{"--mode", "bigline", "--delay", "1h"}, TimeoutMS: 60_000, FailureThreshold: 2}
	add(t, h, cfg)

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Go(func() {
			_, err := h.CallTool(context.Background(), nil, "s__slow", json.RawMessage(`{}`), nil)
			errs <- err
		})
	}
	await(t, "three calls in flight", func() bool { return status(t, h, "s").InFlight == 3 })
	if _, err := h.CallTool(context.Background(), nil, "s__echo", json.RawMessage(`{"text":"big"}`), nil); err == nil {
		t.Fatal("the call answered with a 64 MiB line succeeded")
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == nil {
			t.Fatal("a call on the broken connection succeeded")
		}
	}
	if st := status(t, h, "s"); st.Breaker != hub.BreakerClosed || st.Failures > 1 {
		t.Fatalf("after one broken connection: breaker %s with %d failures, want closed with at most 1", st.Breaker, st.Failures)
	}
	await(t, "reconnected", func() bool {
		return status(t, h, "s").Status == hub.StatusActive && status(t, h, "s").ConnectedAt.After(time.Time{})
	})
	await(t, "breaker reset by the reconnect", func() bool {
		st := status(t, h, "s")
		return st.Breaker == hub.BreakerClosed && st.Failures == 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := h.CallTool(ctx, nil, "s__slow", json.RawMessage(`{}`), nil)
	var coe *hub.CircuitOpenError
	if errors.As(err, &coe) {
		t.Fatalf("call after the reconnect refused: %v", err)
	}
}

// TestReconnectClosesAnOpenBreaker: with a threshold of 1 the loss itself
// opens the breaker; the reconnect that follows closes it at once, without
// waiting out the reset timeout.
func TestReconnectClosesAnOpenBreaker(t *testing.T) {
	bin := testutil.GoBinary(t, "github.com/weft-dev/weft/testdata/misbehave", "misbehave")
	h := newHub(t, hub.Options{BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	cfg := &config.Server{Name: "s", Type: config.TransportStdio, Target: bin,
		Args: []string{"--mode", "crash", "--crash-after", "0"}, TimeoutMS: 60_000,
		FailureThreshold: 1, ResetTimeout: config.Duration(time.Hour)}
	add(t, h, cfg)
	first := status(t, h, "s").ConnectedAt
	if _, err := h.CallTool(context.Background(), nil, "s__echo", json.RawMessage(`{"text":"x"}`), nil); err == nil {
		t.Fatal("the call that crashes the server succeeded")
	}
	await(t, "reconnected with the breaker closed", func() bool {
		st := status(t, h, "s")
		return st.Status == hub.StatusActive && st.ConnectedAt.After(first) && st.Breaker == hub.BreakerClosed && st.Failures == 0
	})
}
