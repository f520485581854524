package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/llm"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/toolset"
)

// fakeTools is a catalog whose tools and servers a test can change while a
// run goes on.
type fakeTools struct {
	mu      sync.Mutex
	tools   []toolset.Tool
	servers []toolset.ServerInfo
	calls   []string
}

var (
	_ toolset.Caller    = (*fakeTools)(nil)
	_ toolset.Describer = (*fakeTools)(nil)
)

const textSchema = `{"type":"object","properties":{"text":{"type":"string"}}}`

func newFakeTools() *fakeTools {
	f := &fakeTools{servers: []toolset.ServerInfo{{Name: "fake", Status: "active", Breaker: "closed"}, {Name: "flaky", Status: "active", Breaker: "open"}}}
	for _, n := range []string{"echo", "const", "empty", "block"} {
		f.tools = append(f.tools, toolset.Tool{Name: "fake__" + n, Server: "fake", Description: n + " tool", InputSchema: json.RawMessage(textSchema)})
	}
	return f
}

// addServer adds a server with one tool, as a config edit would.
func (f *fakeTools) addServer(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers = append(f.servers, toolset.ServerInfo{Name: name, Status: "active", Breaker: "closed"})
	f.tools = append(f.tools, toolset.Tool{Name: name + "__echo", Server: name, Description: "echo", InputSchema: json.RawMessage(textSchema)})
}

func (f *fakeTools) Tools() []toolset.Tool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolset.Tool(nil), f.tools...)
}

func (f *fakeTools) CallTool(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.mu.Unlock()
	text, _ := args["text"].(string)
	var out string
	switch {
	case name == "fake__const":
		out = "same"
	case name == "fake__empty":
		out = ""
	case name == "fake__block":
		<-ctx.Done()
		return nil, ctx.Err()
	case strings.HasSuffix(name, "__echo"):
		out = strings.TrimSuffix(name, "__echo") + ":" + text
	default:
		out = name + ":" + text
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
}

func (f *fakeTools) Servers() []toolset.ServerInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]toolset.ServerInfo(nil), f.servers...)
}

func (f *fakeTools) ResourceNames() []string { return []string{"fake://fake/readme"} }
func (f *fakeTools) PromptNames() []string   { return []string{"fake__greet"} }

func (f *fakeTools) ResourceDescriptions() map[string]string {
	return map[string]string{"fake://fake/readme": "what the fake server does"}
}
func (f *fakeTools) PromptDescriptions() map[string]string { return map[string]string{} }

var wires = llmtest.Wires

// setup builds an agent over tools and a scripted LLM speaking wire.
type setup struct {
	wire     llmtest.Wire
	provider string
	limits   agent.Limits
	price    agent.Price
	maxTools int
	plans    agent.PlanRunner
	strategy string
	spent    func(string, float64)
}

func (s setup) start(t *testing.T, tools toolset.Caller, script ...llmtest.Reply) (*agent.Agent, *llmtest.Server) {
	t.Helper()
	if s.provider == "" {
		s.provider = llm.ProviderOpenAI
	}
	srv := llmtest.New(t, s.wire, script...)
	t.Setenv("LLMTEST_KEY", "sk-test")
	p, err := llm.New(llm.Config{Provider: s.provider, Model: "test-model", BaseURL: srv.URL(), APIKeyEnv: "LLMTEST_KEY", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{Provider: p, Tools: tools, Limits: s.limits, Price: s.price, MaxTools: s.maxTools,
		Plans: s.plans, Strategy: s.strategy, Spent: s.spent, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return a, srv
}

func call(name, args string) llmtest.Reply {
	return llmtest.Reply{Calls: []llmtest.Call{{Name: name, Args: args}}}
}

func repeat(n int, r llmtest.Reply) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}

func echoes(n int, tool string) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = call(tool, fmt.Sprintf(`{"text":"t%d"}`, i))
	}
	return out
}

func limits(mod func(*agent.Limits)) agent.Limits {
	l := agent.DefaultLimits()
	l.StepTimeout = 10 * time.Second
	if mod != nil {
		mod(&l)
	}
	return l
}

// printed is what `weft run` would print of a result.
func printed(res *agent.Result) string {
	var b strings.Builder
	for _, st := range res.Steps {
		agent.WriteStep(&b, st)
	}
	agent.WriteSummary(&b, res)
	return b.String()
}
