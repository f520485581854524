package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestDelegateFallbackReusesRunningHub: inside a running weft,
// weft__delegate falling back to weft's own agent calls tools through the
// daemon's hub. While the agent works (the scripted LLM is asked), there is
// still exactly one process of the upstream: no second hub was built.
func TestDelegateFallbackReusesRunningHub(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Text: "Echo it.", Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "The agent heard fake:hi."},
	)
	var most atomic.Int32
	srv.OnRequest(func(llmtest.Request) {
		n := int32(childrenNamed("fakeserver"))
		for cur := most.Load(); n > cur && !most.CompareAndSwap(cur, n); cur = most.Load() {
		}
	})
	t.Setenv("LLMTEST_KEY", "sk-test")
	path := writeConfig(t, "[llm]\nprovider = \"openai\"\nmodel = \"test-model\"\nbase_url = \""+srv.URL()+"\"\napi_key_env = \"LLMTEST_KEY\"\n\n"+
		"[delegation]\nclaude_command = \"/nonexistent/claude\"\nfallback = [\"claude\", \"agent\"]\n\n"+
		"[tools.mcp_servers.fake]\ntarget = \""+testutil.FakeServerBinary(t)+"\"\n")
	d := newDaemon(t, path)
	if n := childrenNamed("fakeserver"); n != 1 {
		t.Fatalf("%d upstream processes after start, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := d.Gateway().Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "echo hi"}})
	if err != nil || res.IsError {
		t.Fatalf("weft__delegate: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "The agent heard fake:hi.") {
		t.Fatalf("answer %q", text)
	}
	if len(srv.Requests()) != 2 {
		t.Fatalf("the agent asked the LLM %d times, want 2", len(srv.Requests()))
	}
	if n := most.Load(); n != 1 {
		t.Fatalf("%d upstream processes while the fallback agent ran, want 1 (the running hub's)", n)
	}
}

// childrenNamed counts this process's children whose command name is name.
func childrenNamed(name string) int {
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || closing < open {
			continue
		}
		fields := strings.Fields(s[closing+1:])
		if len(fields) > 1 && fields[1] == self && s[open+1:closing] == name {
			n++
		}
	}
	return n
}
