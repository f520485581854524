//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// delegateFails runs `weft delegate` expecting exit code 1 with want on
// stderr, and logs what it printed.
func delegateFails(t *testing.T, e *env, want string, args ...string) string {
	t.Helper()
	out, errOut, code := e.run(append([]string{"delegate"}, args...)...)
	t.Logf("exit %d; stderr:\n%s", code, errOut)
	if code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, want 1 with %q on stderr\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	return errOut
}

// A model that never stops calling tools is cut off at --max-turns.
func TestDelegateMaxTurnsHonoured(t *testing.T) {
	loop := llmtest.Reply{Calls: []llmtest.Call{{Name: "mcp__weft__fake__echo", Args: `{"text":"again"}`}}}
	srv := llmtest.New(t, llmtest.Anthropic, loop, loop, loop, loop, loop, loop, loop, loop)
	e := claudeDelegateEnv(t, srv, "")
	delegateFails(t, e, "error_max_turns", "loop forever", "--allowed-tools", "mcp__weft__fake__echo", "--max-turns", "3")
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the model was asked %d times, want 3 (--max-turns 3)", n)
	}
}

// A model that never answers ends in a timeout error naming the elapsed
// time, and Claude Code's process group is gone.
func TestDelegateHungModelTimesOut(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic, llmtest.Reply{Hold: true}, llmtest.Reply{Hold: true}, llmtest.Reply{Hold: true})
	e := claudeDelegateEnv(t, srv, "timeout = \"4s\"")
	errOut := delegateFails(t, e, "timed out after 4", "wait for a model that never answers")
	if !strings.Contains(errOut, "raise [delegation] timeout") {
		t.Errorf("the timeout error does not say what to do:\n%s", errOut)
	}
}

// Output that is not stream-json fails as unparseable, quoting it.
func TestDelegateGarbageOutput(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_MODE", "garbage")
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n", testutil.FakeClaudeBinary(t)))
	delegateFails(t, e, `cannot parse (invalid character 'W' looking for beginning of value): "Welcome to not-Claude! <html>"`, "anything")
}

// With `claude` missing, the chain falls back to weft's own agent,
// which answers with a weft tool through a scripted OpenAI server.
func TestDelegateFallsBackToAgent(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Text: "Echo it.", Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}},
		llmtest.Reply{Text: "The agent heard fake:hi."},
	)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), "[delegation]\nclaude_command = \"/nonexistent/claude\"\nfallback = [\"claude\", \"agent\"]\n"))
	out, errOut, code := e.run("delegate", "echo hi", "--json")
	t.Logf("exit %d; stdout: %s; stderr:\n%s", code, out, errOut)
	var res struct{ Answer, Delegate string }
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || res.Answer != "The agent heard fake:hi." || res.Delegate != "agent" {
		t.Fatalf("exit %d, stdout %q, want the agent's answer as JSON", code, out)
	}
	for _, want := range []string{"[claude] failed, falling back: /nonexistent/claude failed (cannot start it", `[agent] → fake__echo {"text":"hi"}`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}

// At the depth limit a delegation is refused before anything runs.
func TestDelegateDepthLimit(t *testing.T) {
	srv := llmtest.New(t, llmtest.Anthropic, llmtest.Reply{Text: "should not be asked"})
	e := claudeDelegateEnv(t, srv, "[security]\nmax_delegation_depth = 2")
	t.Setenv("WEFT_DELEGATION_DEPTH", "2")
	delegateFails(t, e, "depth 2 reached the limit security.max_delegation_depth = 2", "nest again")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was asked %d times, want 0", n)
	}
}

// delegateSession starts `weft mcp-server` and connects to it, collecting
// progress messages.
func delegateSession(t *testing.T, e *env, progress func(string)) (*mcp.ClientSession, context.Context) {
	t.Helper()
	cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp-server")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		progress(r.Params.Message)
	}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, ctx
}

// Through the face: weft__delegate answers and streams each step as a
// progress notification.
func TestDelegateToolStreamsProgress(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_MODE", "ok")
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n", testutil.FakeClaudeBinary(t)))
	got := make(chan string, 10)
	cs, ctx := delegateSession(t, e, func(m string) { got <- m })
	params := &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "say hi"}}
	params.SetProgressToken("d1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("weft__delegate: %v %+v", err, res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "done: say hi depth=1") {
		t.Errorf("answer = %q", text)
	}
	for _, want := range []string{"[claude] → mcp__weft__fake__echo", "[claude] text: thinking about say hi", "[claude] result: done: say hi"} {
		if m := <-got; !strings.HasPrefix(m, want) {
			t.Errorf("progress %q, want it to start with %q", m, want)
		}
	}
}

// After failure_threshold failures the breaker is open and the
// next weft__delegate fails at once, naming the breaker.
func TestDelegateToolOpenBreakerFailsFast(t *testing.T) {
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	e := newEnv(t)
	e.writeConfig(t, "[delegation]\nclaude_command = \"/nonexistent/claude\"\nfallback = [\"claude\"]\nfailure_threshold = 1\nreset_timeout = \"1h\"\n")
	cs, ctx := delegateSession(t, e, func(string) {})
	call := func() string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "t"}})
		if err != nil || !res.IsError {
			t.Fatalf("weft__delegate: %v %+v, want a tool error", err, res)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	first := call()
	second := call()
	t.Logf("first call: %s\nsecond call: %s", first, second)
	if !strings.Contains(first, "cannot start it") || !strings.Contains(second, "delegation breaker is open") {
		t.Fatalf("first %q, second %q: want a start failure, then the open breaker", first, second)
	}
}

// In-band: weft__delegate called with _meta["weft/delegation-depth"] at
// the limit is refused even though this weft itself is at depth 0.
func TestDelegateToolInBandDepthRefused(t *testing.T) {
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\n", testutil.FakeClaudeBinary(t)))
	cs, ctx := delegateSession(t, e, func(string) {})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "weft__delegate", Arguments: map[string]any{"task": "t"},
		Meta: mcp.Meta{"weft/delegation-depth": 3}})
	if err != nil || !res.IsError {
		t.Fatalf("weft__delegate at in-band depth 3: %v %+v, want a tool error", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	t.Logf("refusal: %s", text)
	if !strings.Contains(text, "depth 3 reached the limit security.max_delegation_depth = 3") {
		t.Fatalf("refusal %q does not name the depth and the limit", text)
	}
}
