package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestExplainNamesAConnectionThatEnded(t *testing.T) {
	for _, tc := range []struct {
		err  error
		gone bool
	}{
		{fmt.Errorf("calling %q: %w", "tools/call", io.EOF), true},
		{fmt.Errorf("calling %q: %w", "tools/call", &fs.PathError{Op: "read", Path: "|0", Err: os.ErrClosed}), true},
		{fmt.Errorf("%w: calling %q: %v", mcp.ErrConnectionClosed, "tools/call", "x"), true},
		{context.DeadlineExceeded, false},
		{errors.New("tool failed"), false},
		{nil, false},
	} {
		got := explain(tc.err)
		if errors.Is(got, ErrUpstreamGone) != tc.gone {
			t.Errorf("explain(%v) = %v; want gone=%v", tc.err, got, tc.gone)
		}
		if tc.err != nil && !errors.Is(got, tc.err) {
			t.Errorf("explain(%v) lost the original error: %v", tc.err, got)
		}
	}
}
