package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// DryStep is one step as a dry run resolves it.
type DryStep struct {
	Step      int            `json:"step"`
	Title     string         `json:"title"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args"`
	DependsOn []int          `json:"depends_on,omitempty"`
}

// DryRun is what a run would do.
type DryRun struct {
	PlanID string    `json:"plan_id"`
	Steps  []DryStep `json:"steps"` // one per tool call, in execution order
	Calls  int       `json:"calls"` // tool calls the run makes when nothing fails
}

// Dry walks the plan in execution order and resolves each call's arguments
// against the variables; a reference to a result not yet known becomes a
// placeholder such as <result of step 2: deps.items>. It calls no tool.
func Dry(p *Plan, vars map[string]any) (*DryRun, error) {
	if err := Validate(p, nil); err != nil {
		return nil, err
	}
	g, _ := buildGraph(p)
	q := p.WithVars(vars)
	producers, _ := resultVariables(p)
	look := func(r ref) (any, error) {
		if _, ok := q.Variables[r.name]; ok {
			if v, err := lookupIn(q.Variables, r); err == nil {
				return v, nil
			}
		}
		name := strings.TrimSuffix(strings.TrimPrefix(r.String(), "${"), "}")
		if j, ok := producers[r.name]; ok {
			return fmt.Sprintf("<result of step %d: %s>", p.Steps[j].Index, name), nil
		}
		return "<" + name + ">", nil
	}
	out := &DryRun{PlanID: p.ID}
	for _, i := range g.order {
		s := &p.Steps[i]
		for _, c := range s.ToolCalls {
			args, err := substituteArgs(c.Args, look)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.label(), err)
			}
			out.Steps = append(out.Steps, DryStep{Step: s.Index, Title: s.Title, Tool: c.Name, Args: args, DependsOn: s.DependsOn})
			out.Calls++
		}
	}
	return out, nil
}

// Print writes the dry run as text.
func (d *DryRun) Print(w io.Writer) {
	for _, s := range d.Steps {
		line := fmt.Sprintf("%d. %s [%s] %s", s.Step, s.Title, s.Tool, compactJSON(s.Args))
		if len(s.DependsOn) > 0 {
			line += " ← after: " + joinInts(s.DependsOn, ", ")
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "Dry run: %s would be made; none was.\n", plural(d.Calls, "tool call"))
}

// compactJSON renders v on one line, leaving <, > and & readable.
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
