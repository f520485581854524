package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agent"
	"github.com/weft-dev/weft/internal/plan"
)

// errNoLLM is why `weft plan create "description"` cannot run without an
// [llm] table; it says how to add one and what works without.
var errNoLLM = errors.New(`writing a plan from a description needs an LLM: add [llm] with model (and base_url for a local server such as Ollama) to weft.toml, see docs/guides/agent.md; or write the plan as JSON and pass --from FILE`)

// createFromDescription is `weft plan create "description"`: the
// LLM drafts the plan, it is saved, shown, and run as `--from` would run it
// (asking `Execute? [y/n/edit]` at a terminal unless --yes).
func (a *app) createFromDescription(cmd *cobra.Command, f *planFlags, description string, yes bool) error {
	if strings.TrimSpace(description) == "" {
		return errors.New(`say what the plan should do: weft plan create "description", or pass --from FILE`)
	}
	s, err := f.store()
	if err != nil {
		return err
	}
	p, err := a.draftPlan(cmd.Context(), s, description)
	if err != nil {
		return err
	}
	if err := s.Save(p); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Saved plan %s.\n", p.ID)
	return a.confirmAndRun(cmd, f, p, runFlags{yes: yes})
}

// draftPlan has the agent write a plan for description against the live
// catalog. Drafts naming unknown tools (or otherwise invalid) go back to the
// model inside Agent.WritePlan; each rejection is reported on stderr.
func (a *app) draftPlan(ctx context.Context, store *plan.Store, description string) (*plan.Plan, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	if cfg.Agent.LLM.Model == "" {
		return nil, errNoLLM
	}
	s, err := a.startAgent(ctx, agentFlags{agent: a.asAgent}, a.reportDraft)
	if err != nil {
		return nil, err
	}
	defer s.close()
	raw, res, err := s.agent.WritePlan(ctx, agent.Task{Text: description, Sender: agentFlags{agent: a.asAgent}.senderID()})
	if err != nil {
		return nil, fmt.Errorf("plan create: %w", err)
	}
	if raw == nil {
		return nil, noPlanError(res)
	}
	// WritePlan validated raw already; a parse error here is a bug between
	// the agent's and the store's view of a plan, reported as such.
	p, err := plan.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("plan create: the LLM's plan passed validation but does not parse: %w", err)
	}
	if err := freshID(store, p); err != nil {
		return nil, err
	}
	p.FillDefaults(time.Now())
	if p.Description == "" {
		p.Description = description
	}
	agent.WriteCost(a.stdout, "Planning cost", res.Totals)
	return p, nil
}

// freshID gives a drafted plan a new id when the model wrote none, an
// invalid one, or one a stored plan already has: unlike `--from FILE`, whose
// author chose the id, a draft must never replace a stored plan.
func freshID(s *plan.Store, p *plan.Plan) error {
	if p.ID != "" && plan.ValidID(p.ID) && free(s, p.ID) == nil {
		return nil
	}
	// NewID's random suffix makes a clash rare; a few tries tell a clash
	// from a store that cannot be read at all.
	var err error
	for range 5 {
		p.ID = plan.NewID(p.Title)
		if err = free(s, p.ID); err == nil {
			return nil
		}
	}
	return fmt.Errorf("plan create: no free plan id in %s (check that weft can read it): %w", s.Dir, err)
}

// free returns nil when the store holds nothing under id, not even a plan
// file it cannot read.
func free(s *plan.Store, id string) error {
	_, err := s.Load(id)
	if errors.Is(err, plan.ErrNotFound) {
		return nil
	}
	if err == nil {
		return fmt.Errorf("plan %s exists", id)
	}
	return err
}

// reportDraft tells the user, on stderr, that a draft was rejected and why.
func (a *app) reportDraft(st agent.Step) {
	for _, act := range st.Actions {
		if act.IsError {
			fmt.Fprintf(a.stderr, "weft: draft %d rejected: %s\n", st.Index, strings.Join(strings.Fields(act.Observation), " "))
		}
	}
}

// noPlanError explains a WritePlan that ended without a valid plan: why it
// stopped and the last problem the model was told about.
func noPlanError(res *agent.Result) error {
	last := ""
	for _, st := range res.Steps {
		for _, act := range st.Actions {
			if act.IsError {
				last = act.Observation
			}
		}
	}
	if last != "" {
		last = "; the last draft: " + last
	}
	return fmt.Errorf("plan create: the LLM wrote no valid plan (%s after %d drafts)%s; describe the task more precisely, or write the plan as JSON and pass --from FILE",
		res.Reason, len(res.Steps), last)
}
