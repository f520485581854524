//go:build unix

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// agentConfig is a weft.toml with the fake stdio server and [llm] pointing
// at a scripted LLM.
func agentConfig(t *testing.T, provider, baseURL, extra string) string {
	t.Setenv("LLMTEST_KEY", "sk-test")
	return fmt.Sprintf("[llm]\nprovider = %q\nmodel = \"test-model\"\nbase_url = %q\napi_key_env = \"LLMTEST_KEY\"\n\n%s\n"+
		"[tools.mcp_servers.fake]\ntarget = %q\n", provider, baseURL, extra, testutil.FakeServerBinary(t))
}

// The real binary runs a two-step tool-using task against each
// provider's wire format and the fake MCP server.
func TestAgentRunBinary(t *testing.T) {
	for _, w := range llmtest.Wires {
		t.Run(w.Name, func(t *testing.T) {
			srv := llmtest.New(t, w.Wire,
				llmtest.Reply{Text: "Echo it.", Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"hi"}`}}, Usage: &llmtest.Usage{Input: 1000, Output: 50}},
				llmtest.Reply{Text: "The server echoed fake:hi.", Usage: &llmtest.Usage{Input: 1200, Output: 10}},
			)
			e := newEnv(t)
			e.writeConfig(t, agentConfig(t, w.Provider, srv.URL(), "[prices.\"test-model\"]\ninput = 2\noutput = 10\n"))
			out, errOut, code := e.runInput("", "run", "echo hi", "--sender", "e2e")
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, want := range []string{"[1] thought: Echo it.", `[1] action: fake__echo {"text":"hi"}`, `[1] observation: {"text":"fake:hi"}`,
				"[2] answer: The server echoed fake:hi.", "Answer: The server echoed fake:hi.",
				"Cost: $0.005000 (2200 input + 60 output tokens, 2 LLM requests)"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, "agent step cost") || !strings.Contains(errOut, "sender_id=e2e") {
				t.Errorf("stderr does not log the cost per step with its sender:\n%s", errOut)
			}
		})
	}
}

func TestAgentRunJSONAndPartialExit(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"a"}`}}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"b"}`}}},
	)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), "[router.planning]\nmax_planning_depth = 2\n"))
	out, errOut, code := e.runInput("", "run", "keep echoing", "--json")
	if code != 2 {
		t.Fatalf("exit %d, want 2 for an early stop\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var res struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
		Steps   []struct {
			Actions []struct{ Observation string } `json:"actions"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	want := "Planning terminated: depth_limit. Completed 2 of 2 planned steps. Partial results below."
	if res.Reason != "depth_limit" || res.Message != want || len(res.Steps) != 2 || res.Steps[1].Actions[0].Observation != `{"text":"fake:b"}` {
		t.Errorf("record = %+v", res)
	}
	if !strings.Contains(errOut, "weft: planning terminated: depth_limit") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// `weft chat` reads one task per line from a pipe, answers slash
// commands, and keeps earlier turns as history.
func TestAgentChatPiped(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Text: "Hello."},
		llmtest.Reply{Text: "You said hello."},
	)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	out, errOut, code := e.runInput("/servers\n/tools\nhello\nwhat did I say?\n/quit\nnever read\n", "chat")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"fake\tactive\tbreaker closed", "fake__echo\t", "Answer: Hello.", "Answer: You said hello.", "Session cost:"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d LLM requests, want 2 (the line after /quit is not read)", len(reqs))
	}
	var history []string
	for _, m := range reqs[1].Messages {
		history = append(history, m.Role+":"+m.Text)
	}
	if h := strings.Join(history, "|"); !strings.Contains(h, "user:hello|assistant:Hello.|user:what did I say?") {
		t.Errorf("second turn lacks the first as history: %s", h)
	}
}

// An unreachable LLM is one clear line on stderr.
func TestAgentRunUnreachableLLM(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", fmt.Sprintf("http://127.0.0.1:%d/v1", freePort(t)), ""))
	out, errOut, code := e.runInput("", "run", "anything")
	if code != 1 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	last := lastLine(errOut)
	if !strings.HasPrefix(last, "weft: run: step 1: cannot reach OpenAI-compatible LLM at http://127.0.0.1:") || !strings.Contains(last, "fix [llm] base_url") {
		t.Errorf("last stderr line %q", last)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// docBlocks returns the fenced blocks of a markdown file in order, each as
// its language and its lines.
func docBlocks(t *testing.T, path string) []docBlock {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docBlock
	var cur *docBlock
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{lang: strings.TrimPrefix(line, "```")}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

type docBlock struct {
	lang  string
	lines []string
}

// shellWords splits a command line of the guide: words, "double" and
// 'single' quoted strings, and a `printf '…' |` prefix giving stdin.
func shellWords(line string) (args []string, stdin string) {
	if rest, ok := strings.CutPrefix(line, "printf '"); ok {
		text, cmd, _ := strings.Cut(rest, "' | ")
		stdin, line = strings.ReplaceAll(text, `\n`, "\n"), cmd
	}
	var cur strings.Builder
	quote, inWord := rune(0), false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				args, inWord = append(args, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, stdin
}

// Every command of docs/guides/agent.md runs against its config (with the
// scripted LLM as base_url and server-everything installed locally), and
// the output shown after a command is what it prints.
func TestAgentGuideCommands(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	node := npmBin(t, "node")
	sum := []llmtest.Reply{
		{Text: "I will add the numbers with the get-sum tool.", Calls: []llmtest.Call{{Name: "everything__get-sum", Args: `{"a":2,"b":3}`}}, Usage: &llmtest.Usage{Input: 700, Output: 30}},
		{Text: "2 + 3 = 5.", Usage: &llmtest.Usage{Input: 830, Output: 8}},
	}
	srv := llmtest.New(t, llmtest.OpenAI, append(append(append([]llmtest.Reply{}, sum...), sum...), sum...)...)
	blocks := docBlocks(t, filepath.Join("..", "..", "docs", "guides", "agent.md"))
	var config string
	for _, line := range blocks[0].lines {
		switch {
		case strings.HasPrefix(line, "base_url"):
			line = fmt.Sprintf("base_url = %q", srv.URL())
		case strings.HasPrefix(line, "target"):
			line = fmt.Sprintf("target = %q\nenv = { PATH = %q }", bin, filepath.Dir(node)+":"+os.Getenv("PATH"))
		case strings.HasPrefix(line, "args"):
			continue
		}
		config += line + "\n"
	}
	e := newEnv(t)
	e.writeConfig(t, config)
	ran := 0
	for i, b := range blocks {
		if b.lang != "sh" {
			continue
		}
		args, stdin := shellWords(b.lines[0])
		if args[0] != "weft" {
			t.Fatalf("guide command %q does not start with weft", b.lines[0])
		}
		out, errOut, code := e.runInput(stdin, args[1:]...)
		ran++
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", b.lines[0], code, out, errOut)
		}
		if strings.Contains(b.lines[0], "--json") && !json.Valid([]byte(out)) {
			t.Errorf("%s: stdout is not JSON:\n%s", b.lines[0], out)
		}
		if i+1 < len(blocks) && blocks[i+1].lang == "text" {
			for _, want := range blocks[i+1].lines {
				if !strings.Contains(out, want) {
					t.Errorf("%s: output lacks the guide's line %q:\n%s", b.lines[0], want, out)
				}
			}
		}
	}
	if ran != 3 {
		t.Errorf("ran %d guide commands, want 3", ran)
	}
}

// With the real hub: a server added to weft.toml while the first LLM
// request is in flight is offered in the second request, not the first.
func TestAgentSeesServerAddedMidRun(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"a"}`}}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "late__echo", Args: `{"text":"b"}`}}},
		llmtest.Reply{Text: "Both answered."},
	)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	reloaded := make(chan struct{})
	srv.OnRequest(func(r llmtest.Request) {
		if r.Index != 0 {
			return
		}
		late := fmt.Sprintf("\n[tools.mcp_servers.late]\ntarget = %q\nargs = [\"--name\", \"late\"]\n", testutil.FakeServerBinary(t))
		f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			_, err = f.WriteString(late)
			f.Close()
		}
		if err != nil {
			t.Error(err)
			return
		}
		// Answer once weft has applied the edit, so the next step must see it.
		select {
		case <-reloaded:
		case <-time.After(30 * time.Second):
			t.Error("weft did not log a config reload within 30 s")
		}
	})
	cmd := exec.Command(weftBinary(t), "--config", e.config, "run", "use both servers")
	cmd.Env = e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sc := bufio.NewScanner(pipe)
	once := false
	for sc.Scan() {
		stderr.WriteString(sc.Text() + "\n")
		if !once && strings.Contains(sc.Text(), "config reloaded") {
			once = true
			close(reloaded)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("weft run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].HasTool("late__echo") || !reqs[1].HasTool("late__echo") {
		t.Fatalf("late__echo offered: first %v, second %v", reqs[0].HasTool("late__echo"), len(reqs) > 1 && reqs[1].HasTool("late__echo"))
	}
	if out := stdout.String(); !strings.Contains(out, `[2] observation: {"text":"late:b"}`) || !strings.Contains(out, "Answer: Both answered.") {
		t.Errorf("stdout:\n%s", out)
	}
}
