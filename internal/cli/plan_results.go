package cli

import (
	"encoding/json"
	"fmt"

	"github.com/weft-dev/weft/internal/plan"
)

// maxResultLine bounds one printed result, so a large tool result does not
// flood the terminal; --json prints everything.
const maxResultLine = 300

// printResults ends a plan run with what it produced: each step's result
// variable on a line of its own, or, with all, every variable as one JSON
// object.
func (a *app) printResults(p *plan.Plan, cp *plan.Checkpoint, all bool) {
	if all {
		out, err := json.MarshalIndent(cp.Variables, "", "  ")
		if err != nil {
			fmt.Fprintf(a.stdout, "cannot print the variables as JSON: %v\n", err)
			return
		}
		fmt.Fprintln(a.stdout, string(out))
		return
	}
	header := false
	for _, st := range p.Steps {
		v, ok := cp.Variables[st.ResultVariable]
		if st.ResultVariable == "" || !ok {
			continue
		}
		if !header {
			fmt.Fprintln(a.stdout, "Results:")
			header = true
		}
		text, err := json.Marshal(v)
		if err != nil {
			text = []byte(fmt.Sprint(v))
		}
		fmt.Fprintf(a.stdout, "  %s = %s\n", st.ResultVariable, truncate(string(text), maxResultLine))
	}
}
