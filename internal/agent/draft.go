package agent

import (
	"context"
	"encoding/json"

	"github.com/weft-dev/weft/internal/llm"
)

// WritePlan has the model write a plan for task.Text without running it
// (`weft plan create "description"`). Each draft is validated
// against a fresh catalog snapshot; an invalid one goes back to the model
// with what is wrong, at most Limits.MaxReplans times. The guard rails
// apply as in a run. plan is nil when no valid plan came: the result says
// why.
func (a *Agent) WritePlan(ctx context.Context, task Task) (plan json.RawMessage, res *Result, err error) {
	if a.o.Plans == nil {
		return nil, nil, errNoPlanRunner
	}
	r := a.newRun(task, "plan")
	msgs := append(append([]llm.Message(nil), task.History...), llm.Message{Role: llm.RoleUser, Content: task.Text})
	for attempt := 0; ; attempt++ {
		raw, info, reply, problem, err := r.writePlan(ctx, snapshot(a.o.Tools, a.o.MaxTools), msgs)
		switch {
		case err != nil || r.res.Reason != "":
			return nil, r.finish(), err
		case info != nil:
			r.res.Planned, r.res.Completed = len(info.Steps), 0
			r.stop(ReasonComplete)
			return raw, r.finish(), nil
		case attempt >= a.o.Limits.MaxReplans:
			r.stop(ReasonReplanLimit)
			return nil, r.finish(), nil
		}
		r.res.Replans++
		msgs = append(msgs, reply, llm.Message{Role: llm.RoleUser, Content: problem + "\nWrite the whole plan again, in the same JSON format."})
	}
}
