package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/weft-dev/weft/internal/llm"
	"github.com/weft-dev/weft/internal/toolset"
)

// PlanRunner validates and runs plans for plan_and_execute. The
// plan engine provides it; the CLI wires it in. The agent sees plans only
// as JSON, so it does not depend on the engine's types.
type PlanRunner interface {
	// Validate checks a plan against a catalog snapshot: its shape, its
	// dependencies and every tool name.
	Validate(plan json.RawMessage, tools []toolset.Tool) (PlanInfo, error)
	// Run executes a validated plan, calling tools through caller. A failed
	// step is reported in the outcome; err is for a plan that could not run.
	Run(ctx context.Context, plan json.RawMessage, caller toolset.Caller) (*PlanOutcome, error)
}

// PlanInfo describes a valid plan.
type PlanInfo struct {
	Title string
	Steps []PlanStep
}

// PlanStep is one step of a plan as the agent reports it.
type PlanStep struct {
	Index int    `json:"index"`
	Title string `json:"title"`
}

// Plan step statuses in an outcome.
const (
	PlanStepCompleted = "completed"
	PlanStepFailed    = "failed"
	PlanStepSkipped   = "skipped" // never ran (a dependency failed, or the run stopped)
)

// PlanOutcome is what running a plan did, step by step.
type PlanOutcome struct {
	Steps []PlanStepResult
}

// PlanStepResult is one step's end.
type PlanStepResult struct {
	Index  int
	Title  string
	Status string
	Tools  []string
	// Args are the arguments of the step's call (an object), or of all its
	// calls (an array), as the plan wrote them; nil shows as {}.
	Args   json.RawMessage
	Result string // the step's result as text (completed steps)
	Error  string // why it failed
}

// failed returns the first failed step, if any.
func (o *PlanOutcome) failed() (PlanStepResult, bool) {
	for _, s := range o.Steps {
		if s.Status == PlanStepFailed {
			return s, true
		}
	}
	return PlanStepResult{}, false
}

const plannerPrompt = `You are weft's planner. Write a plan that carries out the user's task with the tools below.
Reply with one JSON object and nothing else, in this format:
{"title": "short title", "steps": [{"index": 1, "title": "what the step does", "tool_calls": [{"name": "TOOL", "args": {}}], "depends_on": [], "result_variable": "name"}]}
A step runs once every step in depends_on (step indexes) has completed. In args, "${name}" stands for the result of the step whose result_variable is name.
Tools (name: description; input schema):
`

// errNoPlanRunner is returned when plan_and_execute is asked for but no
// plan engine was wired in.
var errNoPlanRunner = errors.New("plan_and_execute needs the plan engine, which this weft was built without; use --strategy react")

// planAndExecute has the model write a plan, validates and runs it, and
// re-plans the remaining work after a failure, at most MaxReplans times.
func (r *run) planAndExecute(ctx context.Context) error {
	if r.a.o.Plans == nil {
		return errNoPlanRunner
	}
	r.res.Planned = 0
	msgs := append(append([]llm.Message(nil), r.task.History...), llm.Message{Role: llm.RoleUser, Content: r.task.Text})
	var done []PlanStepResult
	for attempt := 0; ; attempt++ {
		v := snapshot(r.a.o.Tools, r.a.o.MaxTools)
		raw, info, reply, problem, err := r.writePlan(ctx, v, msgs)
		if err != nil || r.res.Reason != "" {
			return err
		}
		msgs = append(msgs, reply)
		if info != nil {
			r.res.Planned = len(done) + len(info.Steps)
			// The plan's steps and the answer after them must fit the depth.
			if len(r.res.Steps)+len(info.Steps)+1 > r.a.o.Limits.MaxDepth {
				r.stop(ReasonDepthLimit)
				return nil
			}
			out, err := r.runPlan(ctx, raw, len(info.Steps))
			if err != nil || r.res.Reason != "" {
				return err
			}
			done = append(done, completedOf(out)...)
			r.res.Completed = len(done)
			f, failed := out.failed()
			if !failed {
				return r.answer(ctx, msgs, done)
			}
			problem = fmt.Sprintf("Step %d (%s) failed: %s", f.Index, f.Title, f.Error)
		}
		if attempt >= r.a.o.Limits.MaxReplans {
			r.stop(ReasonReplanLimit)
			return nil
		}
		r.res.Replans++
		msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: replanRequest(problem, done)})
	}
}

// writePlan asks for a plan and validates it. A plan that does not parse
// or validate comes back with info nil and the reason in problem, so that
// the caller re-plans. reply is the model's message for the conversation.
func (r *run) writePlan(ctx context.Context, v *view, msgs []llm.Message) (raw json.RawMessage, info *PlanInfo, reply llm.Message, problem string, err error) {
	req := llm.Request{System: plannerPrompt + toolCatalog(v) + "\n" + v.context(), Messages: msgs}
	if len(r.res.Steps) >= r.a.o.Limits.MaxDepth {
		r.stop(ReasonDepthLimit)
		return nil, nil, reply, "", nil
	}
	if r.overBudget(req) {
		r.stop(ReasonBudget)
		return nil, nil, reply, "", nil
	}
	resp, st, err := r.ask(ctx, "plan", req)
	if err != nil || resp == nil {
		return nil, nil, reply, "", err
	}
	reply = llm.Message{Role: llm.RoleAssistant, Content: resp.Message.Content}
	if strings.TrimSpace(reply.Content) == "" {
		reply.Content = "(no plan)"
	}
	raw = extractJSON(resp.Message.Content)
	st.Thought = resp.Message.Content
	got, verr := r.a.o.Plans.Validate(raw, v.tools)
	if verr != nil {
		st.Actions = []Action{{Tool: "validate_plan", Args: json.RawMessage("{}"), Observation: verr.Error(), IsError: true}}
		r.recordPlanning(st)
		return nil, nil, reply, "The plan was not valid: " + verr.Error(), nil
	}
	st.Thought, st.Plan = planSummary(got), raw
	r.recordPlanning(st)
	return raw, &got, reply, "", nil
}

// planSummary is a plan on one line: its title and numbered step titles.
func planSummary(info PlanInfo) string {
	parts := make([]string, len(info.Steps))
	for i, s := range info.Steps {
		parts[i] = fmt.Sprintf("%d. %s", s.Index, s.Title)
	}
	return fmt.Sprintf("plan %q: %s", info.Title, strings.Join(parts, "; "))
}

// ask sends one request under the step timeout and prices it. A nil
// response with a nil error means the run stopped (step timeout).
func (r *run) ask(ctx context.Context, kind string, req llm.Request) (*llm.Response, Step, error) {
	start := time.Now()
	index := len(r.res.Steps) + 1
	sctx, cancel := context.WithTimeout(ctx, r.a.o.Limits.StepTimeout)
	defer cancel()
	resp, cost, err := r.complete(ctx, sctx, index, req)
	if err != nil || resp == nil {
		return nil, Step{}, err
	}
	return resp, Step{Index: index, Kind: kind, Cost: cost, Duration: time.Since(start)}, nil
}

// complete sends req under the step context sctx and prices the reply. A
// step timeout stops the run and returns a nil response and error.
func (r *run) complete(ctx, sctx context.Context, index int, req llm.Request) (*llm.Response, Cost, error) {
	resp, err := r.a.o.Provider.Complete(sctx, req)
	if err != nil {
		if timedOut(ctx, sctx) {
			r.stop(ReasonStepTimeout)
			return nil, Cost{}, nil
		}
		return nil, Cost{}, fmt.Errorf("step %d: %w", index, err)
	}
	return resp, r.meter.charge(index, req, resp), nil
}

// runPlan runs a plan under one step timeout per plan step and records each
// step that ended.
func (r *run) runPlan(ctx context.Context, raw json.RawMessage, steps int) (*PlanOutcome, error) {
	pctx, cancel := context.WithTimeout(ctx, time.Duration(max(steps, 1))*r.a.o.Limits.StepTimeout)
	defer cancel()
	out, err := r.a.o.Plans.Run(pctx, raw, r.a.o.Tools)
	if timedOut(ctx, pctx) {
		r.stop(ReasonStepTimeout)
	}
	if out != nil {
		for _, s := range out.Steps {
			if s.Status == PlanStepSkipped {
				continue
			}
			st := Step{Index: len(r.res.Steps) + 1, Kind: "plan_step", Thought: fmt.Sprintf("%d. %s", s.Index, s.Title)}
			obs, isErr := s.Result, false
			if s.Status == PlanStepFailed {
				obs, isErr = s.Error, true
			}
			args := s.Args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			st.Actions = []Action{{Tool: strings.Join(s.Tools, ","), Args: args, Observation: obs, IsError: isErr}}
			r.recordPlanning(st)
		}
	}
	if err != nil && r.res.Reason == "" {
		return nil, fmt.Errorf("run plan: %w", err)
	}
	return out, nil
}

// answer asks the model for the final answer from the plan's results.
func (r *run) answer(ctx context.Context, msgs []llm.Message, done []PlanStepResult) error {
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: "The plan ran. Results:\n" + resultsText(done) +
		"\nAnswer the task in plain text from these results."})
	req := llm.Request{System: "You are weft's agent. Answer from the plan's results; call no tool.", Messages: msgs}
	if r.overBudget(req) {
		r.stop(ReasonBudget)
		return nil
	}
	resp, st, err := r.ask(ctx, "answer", req)
	if err != nil || resp == nil {
		return err
	}
	st.Answer = strings.TrimSpace(resp.Message.Content)
	r.recordPlanning(st)
	r.res.Answer = st.Answer
	r.stop(ReasonComplete)
	return nil
}

// recordPlanning keeps a step of plan_and_execute, whose completed count is
// the plan steps that completed (set by the caller), not every record.
func (r *run) recordPlanning(st Step) {
	n := r.res.Completed
	r.record(st)
	r.res.Completed = n
}

func completedOf(o *PlanOutcome) []PlanStepResult {
	var out []PlanStepResult
	for _, s := range o.Steps {
		if s.Status == PlanStepCompleted {
			out = append(out, s)
		}
	}
	return out
}

func replanRequest(problem string, done []PlanStepResult) string {
	var b strings.Builder
	b.WriteString(problem + "\n")
	if len(done) > 0 {
		b.WriteString("Steps completed so far (do not repeat them):\n" + resultsText(done))
	}
	b.WriteString("Write a new plan, in the same JSON format, for the remaining work only.")
	return b.String()
}

func resultsText(done []PlanStepResult) string {
	var b strings.Builder
	for _, s := range done {
		fmt.Fprintf(&b, "- step %d (%s): %s\n", s.Index, s.Title, clip(s.Result, 2000))
	}
	return b.String()
}

// toolCatalog lists the tools of the snapshot for the planner, within the
// cap.
func toolCatalog(v *view) string {
	var b strings.Builder
	for _, t := range v.listed {
		fmt.Fprintf(&b, "- %s: %s; %s\n", t.Name, t.Description, string(t.InputSchema))
	}
	return b.String()
}

// extractJSON takes the JSON object out of a reply that may wrap it in a
// code fence or a sentence.
func extractJSON(s string) json.RawMessage {
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return json.RawMessage(strings.TrimSpace(s))
	}
	return json.RawMessage(s[i : j+1])
}
