package hub

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestOutcomeOf(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
		res  *mcp.CallToolResult
		err  error
		want Outcome
	}{
		{"answer", live, &mcp.CallToolResult{}, nil, OutcomeOK},
		{"isError result", live, &mcp.CallToolResult{IsError: true}, nil, OutcomeToolError},
		{"caller gone", done, nil, context.Canceled, OutcomeCancelled},
		{"breaker", live, nil, fmt.Errorf("s: %w", &CircuitOpenError{Server: "s"}), OutcomeBreakerOpen},
		{"no slot", live, nil, &slotError{limit: "max_concurrent_calls", cause: context.DeadlineExceeded}, OutcomeLimit},
		{"timeout sentinel", live, nil, serverError("s", ErrTimeout), OutcomeTimeout},
		{"timeout", live, nil, fmt.Errorf("no answer: %w", context.DeadlineExceeded), OutcomeTimeout},
		{"unknown tool", live, nil, fmt.Errorf("%w %q", ErrUnknownTool, "x"), OutcomeUnavailable},
		{"draining", live, nil, serverError("s", ErrDraining), OutcomeUnavailable},
		{"protocol error", live, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError}, OutcomeError},
		{"transport", live, nil, errors.New("connection reset"), OutcomeError},
	}
	for _, tt := range tests {
		if got := outcomeOf(tt.ctx, tt.res, tt.err); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
