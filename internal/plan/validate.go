package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/internal/toolset"
)

// Problem is one reason a plan cannot run.
type Problem struct {
	Step    int    // index of the step concerned; 0 for the plan itself
	Title   string // its title
	Message string // what is wrong and what to do
}

// String is the problem as one sentence that names its step.
func (p Problem) String() string {
	switch {
	case p.Step == 0 && p.Title == "":
		return "plan " + p.Message
	case p.Title == "":
		return fmt.Sprintf("step %d %s", p.Step, p.Message)
	}
	return fmt.Sprintf("step %d %q %s", p.Step, p.Title, p.Message)
}

func problem(s *Step, format string, args ...any) Problem {
	return Problem{Step: s.Index, Title: s.Title, Message: fmt.Sprintf(format, args...)}
}

// ValidationError lists everything that stops a plan from running.
type ValidationError struct {
	PlanID   string
	Problems []Problem
}

// Error lists every problem on one line.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid plan: " + strings.Join(parts, "; ")
}

// Validate checks a plan before anything runs: indexes are
// unique, every dependency exists, there is no cycle, every ${var} names a
// plan variable or the result of a step the referring step depends on, and
// — when tools is not nil — every tool is in that catalog snapshot. It
// returns a *ValidationError naming each offending step.
func Validate(p *Plan, tools []toolset.Tool) error {
	var probs []Problem
	if p.ID != "" && !ValidID(p.ID) {
		probs = append(probs, Problem{Message: fmt.Sprintf("id %q may hold only letters, digits, _ and - (at most 100); rename it", p.ID)})
	}
	if len(p.Steps) == 0 {
		probs = append(probs, Problem{Message: "has no steps; add at least one"})
	}
	for name := range p.Variables {
		if !nameRE.MatchString(name) {
			probs = append(probs, Problem{Message: fmt.Sprintf("variable %q is not a valid name; use letters, digits, _ and -", name)})
		}
	}
	g, gprobs := buildGraph(p)
	probs = append(probs, gprobs...)
	producers, vprobs := resultVariables(p)
	probs = append(probs, vprobs...)
	for i := range p.Steps {
		probs = append(probs, checkStep(&p.Steps[i], tools)...)
	}
	var anc []bitset
	if len(gprobs) == 0 {
		anc = g.ancestors()
	}
	probs = append(probs, checkRefs(p, anc, producers)...)
	if len(probs) == 0 {
		return nil
	}
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].Step < probs[j].Step })
	return &ValidationError{PlanID: p.ID, Problems: probs}
}

// checkStep checks what a step holds on its own.
func checkStep(s *Step, tools []toolset.Tool) []Problem {
	var probs []Problem
	if len(s.ToolCalls) == 0 {
		probs = append(probs, problem(s, "has no tool_calls; give it at least one"))
	}
	for _, c := range s.ToolCalls {
		probs = append(probs, checkCall(s, c, tools)...)
	}
	switch s.policy() {
	case OnErrorFail, OnErrorContinue:
		if s.Fallback != nil {
			probs = append(probs, problem(s, "has a fallback but on_error is %q; set on_error to \"fallback\" or remove the fallback", s.policy()))
		}
	case OnErrorFallback:
		if s.Fallback == nil {
			probs = append(probs, problem(s, "has on_error \"fallback\" but no fallback call; add one"))
		} else {
			probs = append(probs, checkCall(s, *s.Fallback, tools)...)
		}
	default:
		probs = append(probs, problem(s, "has on_error %q; use fail, continue or fallback", s.OnError))
	}
	if r := s.Retry; r != nil && (r.Attempts < 0 || r.Backoff < 0) {
		probs = append(probs, problem(s, "has a negative retry; attempts and backoff must be 0 or more"))
	}
	return probs
}

func checkCall(s *Step, c ToolCall, tools []toolset.Tool) []Problem {
	if c.Name == "" {
		return []Problem{problem(s, "has a tool call without a name; give the tool's exposed name")}
	}
	var probs []Problem
	if tools != nil {
		if _, ok := toolset.Find(tools, c.Name); !ok {
			probs = append(probs, problem(s, "calls unknown tool %q%s; `weft mcp list` shows the tools", c.Name, suggest(c.Name, tools)))
		}
	}
	if err := refsIn(map[string]any(c.Args), func(ref) {}); err != nil {
		probs = append(probs, problem(s, "has an argument with %v", err))
	}
	return probs
}

// suggest names catalog tools that end with the unknown name, as when a plan
// says read_file for fs__read_file.
func suggest(name string, tools []toolset.Tool) string {
	var hits []string
	for _, t := range tools {
		if strings.HasSuffix(t.Name, "__"+name) || strings.HasSuffix(t.Name, "_"+name) {
			hits = append(hits, t.Name)
		}
	}
	if len(hits) == 0 || len(hits) > 3 {
		return ""
	}
	return " (did you mean " + strings.Join(hits, " or ") + "?)"
}

// resultVariables maps each result_variable to the position of the step
// that produces it, refusing duplicates and clashes with plan variables.
func resultVariables(p *Plan) (map[string]int, []Problem) {
	out := map[string]int{}
	var probs []Problem
	for i := range p.Steps {
		s := &p.Steps[i]
		name := s.ResultVariable
		switch {
		case name == "":
			continue
		case !nameRE.MatchString(name):
			probs = append(probs, problem(s, "has result_variable %q, not a valid name; use letters, digits, _ and -", name))
		case p.Variables[name] != nil || hasKey(p.Variables, name):
			probs = append(probs, problem(s, "has result_variable %q, the name of a plan variable; rename one of them", name))
		default:
			if j, dup := out[name]; dup {
				probs = append(probs, problem(s, "has result_variable %q, like step %d; give each result its own name", name, p.Steps[j].Index))
				continue
			}
			out[name] = i
		}
	}
	return out, probs
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// checkRefs checks that every reference resolves: to a plan variable, or to
// the result of a step the referring step depends on (directly or not).
// Without anc (the graph is broken) only the names are checked.
func checkRefs(p *Plan, anc []bitset, producers map[string]int) []Problem {
	var probs []Problem
	for i := range p.Steps {
		s := &p.Steps[i]
		seen := map[string]bool{}
		check := func(r ref) {
			if seen[r.name] || hasKey(p.Variables, r.name) {
				return
			}
			seen[r.name] = true
			j, ok := producers[r.name]
			switch {
			case !ok:
				probs = append(probs, problem(s, "uses %s, but no plan variable or step result_variable is called %q; define it or fix the name", r, r.name))
			case j == i:
				probs = append(probs, problem(s, "uses its own result %s; a step can only use results of steps it depends on", r))
			case anc != nil && !anc[i].has(j):
				probs = append(probs, problem(s, "uses %s, the result of step %d, but does not depend on step %d; add %d to its depends_on",
					r, p.Steps[j].Index, p.Steps[j].Index, p.Steps[j].Index))
			}
		}
		for _, c := range s.ToolCalls {
			_ = refsIn(map[string]any(c.Args), check)
		}
		if s.Fallback != nil {
			_ = refsIn(map[string]any(s.Fallback.Args), check)
		}
	}
	return probs
}
