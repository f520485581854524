package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/toolset"
)

// planEngine adapts internal/plan to the agent's PlanRunner, so that
// plan_and_execute validates and runs the model's plans on the plan
// executor.
type planEngine struct{}

var _ agent.PlanRunner = planEngine{}

// Validate parses the plan and checks it against the snapshot's tools.
func (planEngine) Validate(raw json.RawMessage, tools []toolset.Tool) (agent.PlanInfo, error) {
	p, err := plan.Parse(raw)
	if err != nil {
		return agent.PlanInfo{}, err
	}
	if err := plan.Validate(p, tools); err != nil {
		return agent.PlanInfo{}, err
	}
	info := agent.PlanInfo{Title: p.Title}
	for _, s := range p.Steps {
		info.Steps = append(info.Steps, agent.PlanStep{Index: s.Index, Title: s.Title})
	}
	return info, nil
}

// Run executes the plan and reports each step's end; a failed step is in
// the outcome, not the error.
func (planEngine) Run(ctx context.Context, raw json.RawMessage, c toolset.Caller) (*agent.PlanOutcome, error) {
	p, err := plan.Parse(raw)
	if err != nil {
		return nil, err
	}
	p.FillDefaults(time.Now())
	ends := map[int]plan.Event{}
	cp, err := plan.Run(ctx, c, p, plan.Options{Events: func(ev plan.Event) {
		if ev.Kind == plan.StepDone || ev.Kind == plan.StepFailed || ev.Kind == plan.StepSkipped {
			ends[ev.Step.Index] = ev
		}
	}})
	if cp == nil {
		return nil, err
	}
	out := &agent.PlanOutcome{}
	for _, s := range p.Steps {
		r := agent.PlanStepResult{Index: s.Index, Title: s.Title, Status: agent.PlanStepSkipped}
		for _, tc := range s.ToolCalls {
			r.Tools = append(r.Tools, tc.Name)
		}
		if len(s.ToolCalls) == 1 {
			r.Args, _ = json.Marshal(s.ToolCalls[0].Args)
		} else {
			r.Args, _ = json.Marshal(s.ToolCalls)
		}
		switch ev := ends[s.Index]; {
		case cp.Completed(s.Index):
			r.Status = agent.PlanStepCompleted
			if v, ok := cp.Variables[s.ResultVariable]; ok {
				b, _ := json.Marshal(v)
				r.Result = string(b)
			}
		case ev.Kind == plan.StepFailed:
			r.Status, r.Error = agent.PlanStepFailed, fmt.Sprint(ev.Err)
		}
		out.Steps = append(out.Steps, r)
	}
	return out, nil
}
