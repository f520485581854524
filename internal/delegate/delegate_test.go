package delegate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/testutil"

	"github.com/weft-dev/weft/internal/circuit"
)

// runner returns a Runner over fakeclaude in mode, with cfg's fields set.
func runner(t *testing.T, mode string, edit func(*Config)) *Runner {
	t.Helper()
	t.Setenv(DepthEnv, "")
	cfg := Config{Command: testutil.FakeClaudeBinary(t), WeftBinary: "/opt/weft", WeftConfig: "/etc/weft.toml", Chain: []string{Claude},
		Env: append(os.Environ(), "FAKE_CLAUDE_MODE="+mode), Timeout: time.Minute}
	if edit != nil {
		edit(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunClaudeRelaysStepsAndAnswers(t *testing.T) {
	r := runner(t, "ok", func(c *Config) { c.AllowedTools = []string{"mcp__weft__*"} })
	var events []Event
	res, err := r.Run(context.Background(), Request{Task: "-say hi", MaxTurns: 1}, func(e Event) { events = append(events, e) })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"done: -say hi", "depth=1", "mode=-rw-------", "--max-turns 3", "--allowedTools mcp__weft__*",
		"--output-format stream-json --verbose", `"command":"/opt/weft"`, `"args":["mcp-server","--settle","15s","--config","/etc/weft.toml"]`} {
		if !strings.Contains(res.Answer, want) {
			t.Errorf("answer lacks %q:\n%s", want, res.Answer)
		}
	}
	if res.Delegate != Claude {
		t.Errorf("delegate = %q, want claude", res.Delegate)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	if got := strings.Join(kinds, ","); got != "tool_use,text,result" {
		t.Errorf("events = %s, want tool_use,text,result", got)
	}
	if events[0].Tool != "mcp__weft__fake__echo" || !strings.Contains(events[0].String(), "→ mcp__weft__fake__echo") {
		t.Errorf("tool_use event = %+v", events[0])
	}
}

func TestRunFailuresAreTyped(t *testing.T) {
	tests := []struct {
		mode, cmd string
		check     func(error) bool
		want      string
	}{
		{"garbage", "", func(err error) bool {
			var e *UnparseableOutputError
			return errors.As(err, &e) && strings.Contains(e.Raw, "Welcome")
		}, "cannot parse"},
		{"fail", "", func(err error) bool {
			var e *SubprocessError
			return errors.As(err, &e) && e.ExitCode == 3 && strings.Contains(e.Stderr, "invalid API key")
		}, "exit code 3"},
		{"maxturns", "", func(err error) bool {
			var e *SubprocessError
			return errors.As(err, &e) && e.Reason == "error_max_turns"
		}, "error_max_turns"},
		{"ok", "/nonexistent/claude", func(err error) bool { var e *SubprocessError; return errors.As(err, &e) && e.ExitCode == -1 }, "cannot start"},
		{"hang", "", func(err error) bool {
			var e *TimeoutError
			return errors.As(err, &e) && e.Elapsed >= 200*time.Millisecond
		}, "timed out"},
	}
	for _, tt := range tests {
		t.Run(tt.mode+tt.cmd, func(t *testing.T) {
			r := runner(t, tt.mode, func(c *Config) {
				c.Timeout = 200 * time.Millisecond
				if tt.cmd != "" {
					c.Command = tt.cmd
				}
			})
			if tt.mode != "hang" {
				r.cfg.Timeout = time.Minute
			}
			_, err := r.Run(context.Background(), Request{Task: "t"}, nil)
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (%T), want a typed error saying %q", err, err, tt.want)
			}
		})
	}
}

func TestRunCancelledKillsDelegate(t *testing.T) {
	r := runner(t, "hang", nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pid int
	_, err := r.Run(ctx, Request{Task: "t"}, func(e Event) {
		_, _ = fmt.Sscanf(e.Text, "working pid=%d", &pid)
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The grandchild got SIGKILL with its group; give the kernel time to
	// end it (a generous bound, not a timing assertion).
	for deadline := time.Now().Add(10 * time.Second); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d outlived the cancelled delegation", pid)
		}
	}
}

// alive reports whether pid runs (a zombie counts as ended).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func TestRunFallsBackToAgent(t *testing.T) {
	agentErr := errors.New("no llm")
	tests := []struct {
		name  string
		agent AgentFunc
		check func(*testing.T, *Result, error)
	}{
		{"agent answers", func(_ context.Context, task AgentTask, emit func(Event)) (AgentAnswer, error) {
			emit(Event{Delegate: Agent, Kind: KindText, Text: "on it"})
			return AgentAnswer{Text: "agent did " + task.Text, CostUSD: 0.5}, nil
		}, func(t *testing.T, res *Result, err error) {
			if err != nil || res.Answer != "agent did t" || res.Delegate != Agent || res.CostUSD != 0.5 {
				t.Fatalf("res = %+v, err = %v", res, err)
			}
		}},
		{"both fail", func(context.Context, AgentTask, func(Event)) (AgentAnswer, error) { return AgentAnswer{}, agentErr },
			func(t *testing.T, _ *Result, err error) {
				var fe *FallbackExhaustedError
				var se *SubprocessError
				if !errors.As(err, &fe) || len(fe.Attempts) != 2 || !errors.As(err, &se) || !errors.Is(err, agentErr) {
					t.Fatalf("err = %v, want FallbackExhaustedError with both attempts", err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runner(t, "ok", func(c *Config) {
				c.Command = "/nonexistent/claude"
				c.Chain = []string{Claude, Agent}
				c.Agent = tt.agent
			})
			var kinds []string
			res, err := r.Run(context.Background(), Request{Task: "t"}, func(e Event) { kinds = append(kinds, e.Delegate+":"+e.Kind) })
			tt.check(t, res, err)
			if len(kinds) == 0 || kinds[0] != "claude:fallback" {
				t.Errorf("events = %v, want claude:fallback first", kinds)
			}
		})
	}
}

func TestOpenBreakerFailsWithoutSlot(t *testing.T) {
	r := runner(t, "fail", func(c *Config) { c.FailureThreshold = 1; c.ResetTimeout = time.Hour })
	if _, err := r.Run(context.Background(), Request{Task: "t"}, nil); err == nil {
		t.Fatal("the failing delegate succeeded")
	}
	r.slots <- struct{}{} // every slot taken: a call that waited for one would block
	defer func() { <-r.slots }()
	if _, err := r.Run(context.Background(), Request{Task: "t"}, nil); !errors.Is(err, ErrBreakerOpen) {
		t.Fatalf("err = %v, want ErrBreakerOpen", err)
	}
}

func TestBreakerHalfOpenTrial(t *testing.T) {
	now := time.Unix(0, 0)
	b := circuit.New(2, time.Minute, func() time.Time { return now })
	for range 2 {
		probe, _ := b.Allow()
		b.Record(probe, delegationOutcome(errors.New("boom"), false))
	}
	if _, err := b.Allow(); err == nil {
		t.Fatal("open breaker allowed a call")
	}
	now = now.Add(time.Minute)
	probe, err := b.Allow()
	if err != nil || !probe {
		t.Fatal("after the reset timeout a trial must pass")
	}
	if _, err := b.Allow(); err == nil {
		t.Fatal("after the reset timeout exactly one trial must pass")
	}
	b.Record(probe, delegationOutcome(nil, false))
	if _, err := b.Allow(); err != nil {
		t.Fatal("a successful trial must close the breaker")
	}
}

func TestDepthLimit(t *testing.T) {
	tests := []struct {
		depth, max, want int
		refused          bool
	}{{0, 0, 1, false}, {2, 3, 3, false}, {3, 3, 0, true}, {1, 1, 0, true}, {5, 0, 0, true}}
	for _, tt := range tests {
		got, err := nextDepth(tt.depth, 0, tt.max)
		var de *DepthError
		if tt.refused != errors.As(err, &de) || got != tt.want {
			t.Errorf("depth %d max %d: got %d, %v", tt.depth, tt.max, got, err)
		}
	}
	// The deeper of this weft's depth and the caller's in-band one counts.
	for _, c := range []struct{ own, inBand int }{{3, 0}, {0, 3}} {
		r, _ := New(Config{Command: "/nonexistent", WeftBinary: "w", Depth: c.own, MaxDepth: 3})
		if _, err := r.Run(context.Background(), Request{Task: "t", Depth: c.inBand}, nil); err == nil ||
			!strings.Contains(err.Error(), "depth 3 reached the limit security.max_delegation_depth = 3") {
			t.Fatalf("own %d, in-band %d: err = %v, want a refusal naming the limit", c.own, c.inBand, err)
		}
	}
}
