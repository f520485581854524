//go:build unix

package e2e

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/llm/llmtest"
)

// On the real plan executor: a step that fails makes the agent re-plan
// once, and the second plan completes.
func TestAgentPlanAndExecuteBinary(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Text: `{"title":"two","steps":[{"index":1,"title":"echo a","tool_calls":[{"name":"fake__echo","args":{"text":"a"}}],"result_variable":"a"},` +
			`{"index":2,"title":"sleep badly","tool_calls":[{"name":"fake__sleep","args":{"ms":"soon"}}],"depends_on":[1]}]}`},
		llmtest.Reply{Text: `{"title":"again","steps":[{"index":1,"title":"echo b","tool_calls":[{"name":"fake__echo","args":{"text":"b"}}],"result_variable":"b"}]}`},
		llmtest.Reply{Text: "Echoed a and b."},
	)
	e := newEnv(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), ""))
	out, errOut, code := e.runInput("", "run", "--strategy", "plan_and_execute", "echo a, sleep, echo b")
	t.Logf("stdout:\n%s", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`observation: {"text":"fake:a"}`, "error: ", `observation: {"text":"fake:b"}`, "Answer: Echoed a and b."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Text, "Step 2 (sleep badly) failed") {
		t.Errorf("requests %d; re-plan request: %+v", len(reqs), reqs[len(reqs)-1].Messages)
	}
}
