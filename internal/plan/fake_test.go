package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/toolset"
)

// fakeTools is an in-process toolset.Caller:
//   - sleep {ms, out}: waits ms milliseconds (fake time under synctest) and
//     returns out (or "ok") as structured content;
//   - echo {…}: returns its arguments as JSON text;
//   - fail {}: a tool error; flaky {}: fails the first failFirst calls;
//   - big {bytes}: returns a string of that many bytes.
type fakeTools struct {
	mu        sync.Mutex
	calls     map[string]int
	log       []string // "tool args" per call, in call order
	failFirst int
	idem      map[string]bool
}

var _ toolset.Caller = (*fakeTools)(nil)

func newFake() *fakeTools { return &fakeTools{calls: map[string]int{}} }

func (f *fakeTools) Tools() []toolset.Tool {
	var out []toolset.Tool
	for _, n := range []string{"sleep", "echo", "fail", "flaky", "big"} {
		out = append(out, toolset.Tool{Name: n, Server: "fake"})
	}
	return out
}

func (f *fakeTools) Idempotent(name string) bool { return f.idem[name] }

func (f *fakeTools) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	b, _ := json.Marshal(args)
	f.mu.Lock()
	f.calls[name]++
	n := f.calls[name]
	f.log = append(f.log, name+" "+string(b))
	f.mu.Unlock()
	switch name {
	case "sleep":
		ms, _ := args["ms"].(json.Number).Int64()
		if !sleep(ctx, time.Duration(ms)*time.Millisecond) {
			return nil, ctx.Err()
		}
		out := args["out"]
		if out == nil {
			out = "ok"
		}
		return &mcp.CallToolResult{StructuredContent: map[string]any{"out": out}}, nil
	case "echo":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	case "big":
		n, _ := args["bytes"].(json.Number).Int64()
		return &mcp.CallToolResult{StructuredContent: map[string]any{"out": strings.Repeat("x", int(n))}}, nil
	case "fail":
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}}, nil
	case "flaky":
		if n <= f.failFirst {
			return nil, fmt.Errorf("flaky failure %d", n)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "recovered"}}}, nil
	}
	return nil, fmt.Errorf("%w %q", toolset.ErrUnknownTool, name)
}

func (f *fakeTools) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[name]
}

func (f *fakeTools) total() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.log)
}

// mustParse parses a plan written in a test.
func mustParse(t testing.TB, s string) *Plan {
	t.Helper()
	p, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("test plan: %v", err)
	}
	return p
}

// sleepStep builds a step that sleeps ms after deps.
func sleepStep(index, ms int, deps ...int) Step {
	return Step{Index: index, Title: fmt.Sprintf("s%d", index), DependsOn: deps,
		ToolCalls: []ToolCall{{Name: "sleep", Args: map[string]any{"ms": json.Number(fmt.Sprint(ms))}}}}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// fsRead is a namespaced catalog tool, for the did-you-mean hint.
var fsRead = toolset.Tool{Name: "fs__read_file", Server: "fs"}

func jsonNum(n int) json.Number { return json.Number(fmt.Sprint(n)) }
