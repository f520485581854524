package cli

import (
	"bytes"
	"context"
	"go.opentelemetry.io/otel/attribute"

	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/plan"
)

// planService serves the gateway's plan tools from the plan store, calling
// tools through the same hub as the face.
type planService struct {
	store *plan.Store
	tools planTools
	obs   *observability // counts runs and steps; nil: none
}

var _ gateway.Plans = (*planService)(nil)

// planService returns the plan tools' backend, or nil (no plan tools) when
// the plans directory cannot be found.
func (a *app) planService(h *hub.Hub, obs *observability) gateway.Plans {
	dir, err := plan.DefaultDir()
	if err != nil {
		a.logger.Warn("plan tools disabled", "err", err)
		return nil
	}
	return &planService{store: &plan.Store{Dir: dir}, tools: planTools{hubTools{h}}, obs: obs}
}

type planSummary struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Steps   int    `json:"steps"`
	LastRun string `json:"last_run"`
}

// List implements gateway.Plans.
func (s *planService) List(context.Context) (any, error) {
	plans, _, err := s.store.List()
	if err != nil {
		return nil, err
	}
	out := struct {
		Plans []planSummary `json:"plans"`
	}{Plans: []planSummary{}}
	for _, p := range plans {
		out.Plans = append(out.Plans, planSummary{ID: p.ID, Title: p.Title, Steps: len(p.Steps), LastRun: lastRun(s.store, p.ID)})
	}
	return out, nil
}

// Show implements gateway.Plans.
func (s *planService) Show(_ context.Context, id string) (string, any, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return "", nil, err
	}
	var b bytes.Buffer
	plan.Render(&b, p)
	return b.String(), p, nil
}

// DryRun implements gateway.Plans; it calls no tool.
func (s *planService) DryRun(_ context.Context, id string, vars map[string]any) (string, any, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return "", nil, err
	}
	d, err := plan.Dry(p, vars)
	if err != nil {
		return "", nil, err
	}
	var b bytes.Buffer
	d.Print(&b)
	return b.String(), d, nil
}

// Run implements gateway.Plans: one run per plan, checkpointed like the CLI.
func (s *planService) Run(ctx context.Context, id string, o gateway.PlanRunOptions, progress func(string, int, int)) (any, error) {
	p, err := s.store.Load(id)
	if err != nil {
		return nil, err
	}
	unlock, err := s.store.Lock(id)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := plan.Validate(p, s.tools.Tools()); err != nil {
		return nil, err
	}
	finished := 0
	opts := plan.Options{MaxParallel: o.MaxParallel, Vars: o.Vars, Budget: plan.NewBudget(plan.Limits{MaxCalls: o.MaxCalls}),
		Checkpoint: s.store.Checkpointer(),
		Events: func(e plan.Event) {
			// Progress must only grow; retry events carry no counters.
			finished = max(finished, e.Done+e.Failed)
			progress(describeEvent(e), finished, e.Total)
			s.obs.planEvent(id, e)
		}}
	if o.Resume {
		cp, ok, err := s.store.LoadCheckpoint(id)
		if err != nil {
			return nil, err
		}
		if ok {
			opts.Resume = cp
		}
	}
	ctx, endSpan := s.obs.span(withPlanCaller(ctx, id), "plan.run "+id, attribute.String("weft.plan", id))
	cp, err := plan.Run(ctx, s.tools, p, opts)
	endSpan(err)
	s.obs.planRun(err)
	if cp == nil {
		return nil, err
	}
	return cp, err
}
