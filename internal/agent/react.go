package agent

import (
	"context"
	"strings"
	"time"

	"github.com/weft-dev/weft/internal/llm"
)

// reactPrompt sets the ReAct protocol: a reply with tool calls is an
// action, a reply with text alone is the final answer.
const reactPrompt = `You are weft's agent. You reach the tools of MCP servers through function calls.
Work in steps: think briefly, then call the tool or tools you need and read what they return.
When you know the answer, reply with it as plain text and no tool call: that reply ends the task.
Do not repeat a call that already returned; use its result.
`

// nudge answers a reply that took no action.
const nudge = "Your reply had neither a tool call nor an answer. Call a tool, or give your final answer as text."

// react runs thought → action → observation until the model answers or a
// guard rail stops it.
func (r *run) react(ctx context.Context) error {
	msgs := append(append([]llm.Message(nil), r.task.History...), llm.Message{Role: llm.RoleUser, Content: r.task.Text})
	var guard noopGuard
	for index := 1; ; index++ {
		if index > r.a.o.Limits.MaxDepth {
			r.stop(ReasonDepthLimit)
			return nil
		}
		v := snapshot(r.a.o.Tools, r.a.o.MaxTools)
		req := llm.Request{System: reactPrompt + "\n" + v.context(), Messages: msgs, Tools: v.llmTools()}
		if r.overBudget(req) {
			r.stop(ReasonBudget)
			return nil
		}
		st, added, err := r.reactStep(ctx, index, v, req)
		if err != nil || r.res.Reason != "" {
			return err
		}
		msgs = append(msgs, added...)
		if st.Kind == "answer" {
			r.record(st)
			r.res.Answer = st.Answer
			r.stop(ReasonComplete)
			return nil
		}
		st.NoOp = guard.judge(st)
		if st.NoOp == NoOpNoAction {
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: nudge})
		}
		r.record(st)
		if r.countNoOp(st.NoOp) {
			r.stop(ReasonCircuitBreaker)
			return nil
		}
	}
}

// reactStep asks the model once and runs the tool calls it asks for, all
// under the step timeout. It returns the step and the messages it adds to
// the conversation. A timeout stops the run (the step does not count).
func (r *run) reactStep(ctx context.Context, index int, v *view, req llm.Request) (Step, []llm.Message, error) {
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, r.a.o.Limits.StepTimeout)
	defer cancel()
	resp, cost, err := r.complete(ctx, sctx, index, req)
	if err != nil || resp == nil {
		return Step{}, nil, err
	}
	st := Step{Index: index, Kind: "react", Thought: strings.TrimSpace(resp.Message.Content), Cost: cost}
	added := []llm.Message{resp.Message}
	if len(resp.Message.ToolCalls) == 0 && st.Thought != "" {
		st.Kind, st.Answer, st.Thought = "answer", st.Thought, ""
	}
	for _, tc := range resp.Message.ToolCalls {
		act := v.call(sctx, tc)
		st.Actions = append(st.Actions, act)
		added = append(added, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Content: clip(act.Observation, maxObservation), IsError: act.IsError})
	}
	if timedOut(ctx, sctx) {
		r.stop(ReasonStepTimeout)
		return Step{}, nil, nil
	}
	if err := ctx.Err(); err != nil {
		return Step{}, nil, err
	}
	st.Duration = time.Since(start)
	return st, added, nil
}
