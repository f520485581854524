package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/plan"
)

// planService serves the gateway's plan tools from the plan store, calling
// tools through the same hub as the face, within its view.
type planService struct {
	store *plan.Store
	// tools are the tools a run may call: the face's view as it is when
	// the run starts (an agent's config may have changed since).
	tools func() (PlanTools, error)
	obs   *observability // counts runs and steps; nil: none
}

var _ gateway.Plans = (*planService)(nil)

// planService returns the plan tools' backend, or nil (no plan tools) when
// the plans directory cannot be found.
func (d *Daemon) planService() gateway.Plans {
	return d.plansAs("")
}

// plansAs is planService run as the named agent ("" for everything), as
// `weft plan run --agent` runs: plans are checked against and call only the
// tools of its view, under its names for them.
func (d *Daemon) plansAs(agent string) gateway.Plans {
	dir, err := plan.DefaultDir()
	if err != nil {
		d.logger.Warn("plan tools disabled", "agent", agent, "err", err)
		return nil
	}
	tools := func() (PlanTools, error) {
		t, err := d.AgentTools(agent)
		return PlanTools{t}, err
	}
	return &planService{store: &plan.Store{Dir: dir}, tools: tools, obs: d.obs}
}

// List implements gateway.Plans.
func (s *planService) List(context.Context) (gateway.PlanList, error) {
	plans, _, err := s.store.List()
	if err != nil {
		return gateway.PlanList{}, err
	}
	out := gateway.PlanList{Plans: []gateway.PlanSummary{}}
	for _, p := range plans {
		out.Plans = append(out.Plans, gateway.PlanSummary{ID: p.ID, Title: p.Title, Steps: len(p.Steps), LastRun: LastRun(s.store, p.ID)})
	}
	return out, nil
}

// Show implements gateway.Plans.
func (s *planService) Show(_ context.Context, id string) (gateway.PlanDoc, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	var b bytes.Buffer
	plan.Render(&b, p)
	return planDoc(b.String(), p)
}

// DryRun implements gateway.Plans; it calls no tool.
func (s *planService) DryRun(_ context.Context, id string, vars map[string]any) (gateway.PlanDoc, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	d, err := plan.Dry(p, vars)
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	var b bytes.Buffer
	d.Print(&b)
	return planDoc(b.String(), d)
}

// planDoc pairs text with v's JSON for the face.
func planDoc(text string, v any) (gateway.PlanDoc, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return gateway.PlanDoc{}, fmt.Errorf("encode result: %w", err)
	}
	return gateway.PlanDoc{Text: text, Data: b}, nil
}

// Run implements gateway.Plans: one run per plan, checkpointed like the CLI.
func (s *planService) Run(ctx context.Context, id string, o gateway.PlanRunOptions, progress func(string, int, int)) (gateway.PlanDoc, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	unlock, err := s.store.Lock(id)
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	defer unlock()
	tools, err := s.tools()
	if err != nil {
		return gateway.PlanDoc{}, err
	}
	if err := plan.Validate(p, tools.Tools()); err != nil {
		return gateway.PlanDoc{}, err
	}
	finished := 0
	opts := plan.Options{MaxParallel: o.MaxParallel, Vars: o.Vars, Budget: plan.NewBudget(plan.Limits{MaxCalls: o.MaxCalls}),
		Checkpoint: s.store.Checkpointer(),
		Events: func(e plan.Event) {
			// Progress must only grow; retry events carry no counters.
			finished = max(finished, e.Done+e.Failed)
			progress(DescribeEvent(e), finished, e.Total)
			s.obs.planEvent(id, e)
		}}
	if o.Resume {
		cp, ok, err := s.store.LoadCheckpoint(id)
		if err != nil {
			return gateway.PlanDoc{}, err
		}
		if ok {
			opts.Resume = cp
		}
	}
	ctx, endSpan := s.obs.span(withPlanCaller(ctx, id), "plan.run "+id, attribute.String("weft.plan", id))
	cp, err := plan.Run(ctx, tools, p, opts)
	endSpan(err)
	s.obs.planRun(err)
	if cp == nil {
		return gateway.PlanDoc{}, err
	}
	doc, merr := planDoc("", cp)
	if merr != nil {
		return doc, merr
	}
	return doc, err
}

// LastRun summarises a plan's checkpoint: "completed 4/4", "never run".
func LastRun(s *plan.Store, id string) string {
	cp, ok, err := s.LoadCheckpoint(id)
	switch {
	case err != nil:
		return "unreadable checkpoint"
	case !ok:
		return "never run"
	}
	return fmt.Sprintf("%s, %d done, %d failed (%s)", cp.Status, len(cp.CompletedSteps), len(cp.FailedSteps), cp.UpdatedAt.Local().Format(time.DateTime))
}

// DescribeEvent is one line about a plan event, shared by the CLI and the
// MCP progress notifications.
func DescribeEvent(e plan.Event) string {
	s := e.Step
	name := fmt.Sprintf("step %d %s", s.Index, s.Title)
	counts := fmt.Sprintf("%d/%d done, %d running, %d failed", e.Done, e.Total, e.Running, e.Failed)
	switch e.Kind {
	case plan.StepStarted:
		return fmt.Sprintf("started %s %s (%s)", name, toolNames(s), counts)
	case plan.StepDone:
		return fmt.Sprintf("done    %s in %.1fs (%s)", name, e.Elapsed.Seconds(), counts)
	case plan.StepFailed:
		return fmt.Sprintf("failed  %s: %s (%s)", name, oneLine(e.Err), counts)
	case plan.StepRetry:
		return fmt.Sprintf("retry   %s, attempt %d: %s", name, e.Attempt, oneLine(e.Err))
	case plan.StepSkipped:
		return fmt.Sprintf("skipped %s: a step it depends on failed", name)
	}
	return string(e.Kind) + " " + name
}

func toolNames(s *plan.Step) string {
	names := make([]string, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		names = append(names, c.Name)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// oneLine is err's message on one line.
func oneLine(err error) string {
	if err == nil {
		return ""
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}
