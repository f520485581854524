package hub_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestCallToolRawIsObservedAndGuardedAsCallTool makes raw calls of a stdio
// upstream (whose results travel as raw JSON) and checks that observers
// and the breaker see them as they see CallTool's: ok, an error result,
// a timeout that opens the breaker, then the open breaker.
func TestCallToolRawIsObservedAndGuardedAsCallTool(t *testing.T) {
	rec := &recorder{}
	h := newHub(t, hub.Options{Observer: rec})
	add(t, h, &config.Server{Name: "s", Type: config.TransportStdio, Target: testutil.FakeServerBinary(t),
		TimeoutMS: 500, FailureThreshold: 1})
	ctx := hub.WithCaller(context.Background(), hub.Caller{Face: "http", Session: "S1"})

	res, err := h.CallToolRaw(ctx, nil, "s__echo", json.RawMessage(`{"text":"raw"}`), nil)
	if err != nil || res.IsError || !strings.Contains(string(res.JSON), `"content":[`) || !strings.Contains(string(res.JSON), "raw") {
		t.Fatalf("raw echo = %s (isError %v), %v", res.JSON, res.IsError, err)
	}
	if c := rec.last(); c.Outcome != hub.OutcomeOK || c.Server != "s" || c.Tool != "s__echo" || c.Upstream <= 0 || c.Caller.Session != "S1" {
		t.Fatalf("raw call recorded as %+v", c)
	}

	// Arguments the tool's schema refuses: go-sdk's server answers with an
	// error result, which is a result, not an error.
	res, err = h.CallToolRaw(ctx, nil, "s__echo", json.RawMessage(`{"text":5}`), nil)
	if err != nil || !res.IsError {
		t.Fatalf("raw echo of a number = %s (isError %v), %v; want an error result", res.JSON, res.IsError, err)
	}
	if c := rec.last(); c.Outcome != hub.OutcomeToolError {
		t.Fatalf("error result recorded as %s, want tool_error", c.Outcome)
	}

	if _, err := h.CallToolRaw(ctx, nil, "s__sleep", json.RawMessage(`{"ms":5000}`), nil); err == nil {
		t.Fatal("a call past the server's timeout succeeded")
	}
	if c := rec.last(); c.Outcome != hub.OutcomeTimeout {
		t.Fatalf("raw call past the timeout recorded as %s, want timeout", c.Outcome)
	}
	if _, err := h.CallToolRaw(ctx, nil, "s__sleep", json.RawMessage(`{"ms":0}`), nil); err == nil {
		t.Fatal("a call through the open breaker succeeded")
	}
	if c := rec.last(); c.Outcome != hub.OutcomeBreakerOpen {
		t.Fatalf("raw call refused by the breaker recorded as %s, want breaker_open", c.Outcome)
	}
}
