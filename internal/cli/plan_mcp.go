package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/plan"
)

// planService serves the gateway's plan tools from the plan store, calling
// tools through the same hub as the face.
type planService struct {
	store *plan.Store
	tools planTools
}

var _ gateway.Plans = (*planService)(nil)

// planService returns the plan tools' backend, or nil (no plan tools) when
// the plans directory cannot be found.
func (a *app) planService(h *hub.Hub) gateway.Plans {
	dir, err := plan.DefaultDir()
	if err != nil {
		a.logger.Warn("plan tools disabled", "err", err)
		return nil
	}
	return &planService{store: &plan.Store{Dir: dir}, tools: planTools{hubTools{h}}}
}

// List implements gateway.Plans.
func (s *planService) List(context.Context) (gateway.PlanList, error) {
	plans, _, err := s.store.List()
	if err != nil {
		return gateway.PlanList{}, err
	}
	out := gateway.PlanList{Plans: []gateway.PlanSummary{}}
	for _, p := range plans {
		out.Plans = append(out.Plans, gateway.PlanSummary{ID: p.ID, Title: p.Title, Steps: len(p.Steps), LastRun: lastRun(s.store, p.ID)})
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
	if err := plan.Validate(p, s.tools.Tools()); err != nil {
		return gateway.PlanDoc{}, err
	}
	finished := 0
	opts := plan.Options{MaxParallel: o.MaxParallel, Vars: o.Vars, Budget: plan.NewBudget(plan.Limits{MaxCalls: o.MaxCalls}),
		Checkpoint: s.store.Checkpointer(),
		Events: func(e plan.Event) {
			// Progress must only grow; retry events carry no counters.
			finished = max(finished, e.Done+e.Failed)
			progress(describeEvent(e), finished, e.Total)
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
	cp, err := plan.Run(ctx, s.tools, p, opts)
	if cp == nil {
		return gateway.PlanDoc{}, err
	}
	doc, merr := planDoc("", cp)
	if merr != nil {
		return doc, merr
	}
	return doc, err
}
