package llm_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/llm"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var wires = llmtest.Wires

func provider(t *testing.T, provider, url string, retries int) llm.Provider {
	t.Helper()
	t.Setenv("LLMTEST_KEY", "sk-test")
	p, err := llm.New(llm.Config{Provider: provider, Model: "test-model", BaseURL: url, APIKeyEnv: "LLMTEST_KEY", MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var echoTool = llm.Tool{Name: "fake__echo", Description: "Echo the text back",
	Schema: []byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}

// A tool call, its result sent back, then a text answer: both wire formats
// carry tool definitions, calls, results and usage both ways.
func TestToolCallRoundTrip(t *testing.T) {
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			srv := llmtest.New(t, w.Wire,
				llmtest.Reply{Text: "Let me echo.", Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 100, Output: 20}},
				llmtest.Reply{Text: "It said hi.", Usage: &llmtest.Usage{Input: 150, Output: 10}},
			)
			p := provider(t, w.Provider, srv.URL(), -1)
			ctx := context.Background()
			req := llm.Request{System: "be brief", Tools: []llm.Tool{echoTool},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "echo hi"}}}
			r1, err := p.Complete(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(r1.Message.ToolCalls) != 1 || r1.Message.ToolCalls[0].Name != "fake__echo" || string(r1.Message.ToolCalls[0].Args) != `{"text":"hi"}` {
				t.Fatalf("tool calls = %+v", r1.Message.ToolCalls)
			}
			if !r1.UsageReported || r1.Usage != (llm.Usage{InputTokens: 100, OutputTokens: 20}) {
				t.Fatalf("usage = %+v reported=%v", r1.Usage, r1.UsageReported)
			}
			req.Messages = append(req.Messages, r1.Message,
				llm.Message{Role: llm.RoleTool, ToolCallID: r1.Message.ToolCalls[0].ID, Content: "fake:hi"})
			r2, err := p.Complete(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if r2.Message.Content != "It said hi." || len(r2.Message.ToolCalls) != 0 {
				t.Fatalf("answer = %+v", r2.Message)
			}
			got := srv.Requests()[1]
			if !got.HasTool("fake__echo") || got.Header.Get("Authorization")+got.Header.Get("X-Api-Key") == "" {
				t.Errorf("second request lacks the tool or the key: tools %v", got.Tools)
			}
			var texts []string
			for _, m := range got.Messages {
				texts = append(texts, m.Role+":"+m.Text)
			}
			joined := strings.Join(texts, "|")
			for _, want := range []string{"system:be brief", "user:echo hi", `assistant:fake__echo {"text":"hi"}`, "tool:fake:hi"} {
				if !strings.Contains(joined, want) {
					t.Errorf("second request misses %q: %s", want, joined)
				}
			}
		})
	}
}

func TestNoUsageReported(t *testing.T) {
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			srv := llmtest.New(t, w.Wire, llmtest.Reply{Text: "done"})
			r, err := provider(t, w.Provider, srv.URL(), -1).Complete(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
			if err != nil {
				t.Fatal(err)
			}
			if r.UsageReported {
				t.Fatalf("usage reported as %+v for a reply without usage", r.Usage)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	fast := map[string]string{"Retry-After-Ms": "1"}
	cases := []struct {
		name     string
		script   []llmtest.Reply
		retries  int
		kind     llm.Kind
		requests int
		says     string
	}{
		{"auth", []llmtest.Reply{{Status: 401}}, 2, llm.KindAuth, 1, "$LLMTEST_KEY"},
		{"not found", []llmtest.Reply{{Status: 404}}, 2, llm.KindNotFound, 1, "[llm] model"},
		{"rate limited to the end", []llmtest.Reply{{Status: 429, Header: fast}, {Status: 429, Header: fast}, {Status: 429, Header: fast}}, 2, llm.KindRateLimited, 3, "429"},
		{"server error to the end", []llmtest.Reply{{Status: 503, Header: fast}, {Status: 502, Header: fast}}, 1, llm.KindServer, 2, "after 1 retries"},
		{"bad request", []llmtest.Reply{{Status: 400}}, 2, llm.KindRequest, 1, "scripted status 400"},
	}
	for _, w := range wires {
		for _, c := range cases {
			t.Run(w.Name+"/"+c.name, func(t *testing.T) {
				srv := llmtest.New(t, w.Wire, c.script...)
				_, err := provider(t, w.Provider, srv.URL(), c.retries).Complete(context.Background(),
					llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
				var le *llm.Error
				if !errors.As(err, &le) || le.Kind != c.kind {
					t.Fatalf("err = %v, want kind %v", err, c.kind)
				}
				if !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
					t.Errorf("message %q should be one line mentioning %q", err, c.says)
				}
				if n := len(srv.Requests()); n != c.requests {
					t.Errorf("%d requests, want %d", n, c.requests)
				}
			})
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	fast := map[string]string{"Retry-After-Ms": "1"}
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			srv := llmtest.New(t, w.Wire, llmtest.Reply{Status: 429, Header: fast}, llmtest.Reply{Status: 500, Header: fast}, llmtest.Reply{Text: "ok"})
			r, err := provider(t, w.Provider, srv.URL(), 2).Complete(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
			if err != nil || r.Message.Content != "ok" {
				t.Fatalf("got %+v, %v", r, err)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			_, err := provider(t, w.Provider, url, -1).Complete(context.Background(),
				llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != llm.KindUnreachable {
				t.Fatalf("err = %v, want unreachable", err)
			}
			if !strings.Contains(err.Error(), "cannot reach") || !strings.Contains(err.Error(), "base_url") {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestTimeoutIsTheContextsError(t *testing.T) {
	for _, w := range wires {
		t.Run(w.Name, func(t *testing.T) {
			srv := llmtest.New(t, w.Wire, llmtest.Reply{Hold: true})
			ctx, cancel := context.WithCancel(context.Background())
			srv.OnRequest(func(llmtest.Request) { cancel() })
			_, err := provider(t, w.Provider, srv.URL(), 2).Complete(ctx,
				llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	t.Setenv("NO_SUCH_KEY_VAR", "")
	cases := []struct {
		cfg  llm.Config
		says string
	}{
		{llm.Config{Provider: "openai"}, "[llm] model"},
		{llm.Config{Provider: "gemini", Model: "m"}, `provider "gemini"`},
		{llm.Config{Provider: "anthropic", Model: "m", APIKeyEnv: "NO_SUCH_KEY_VAR"}, "$NO_SUCH_KEY_VAR"},
	}
	for _, c := range cases {
		_, err := llm.New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("New(%+v) = %v, want mention of %q", c.cfg, err, c.says)
		}
	}
}
