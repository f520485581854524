package agent

import (
	"fmt"
	"io"
	"strings"
)

// compactLen bounds each line of the compact display.
const compactLen = 160

// WriteStep prints one step compactly: its thought, each action with its
// arguments and observation, or the answer.
func WriteStep(w io.Writer, st Step) {
	if st.Thought != "" {
		fmt.Fprintf(w, "[%d] thought: %s\n", st.Index, compact(st.Thought))
	}
	for _, a := range st.Actions {
		fmt.Fprintf(w, "[%d] action: %s %s\n", st.Index, a.Tool, compact(string(a.Args)))
		label := "observation"
		if a.IsError {
			label = "error"
		}
		fmt.Fprintf(w, "[%d] %s: %s\n", st.Index, label, compact(a.Observation))
	}
	if st.NoOp != "" {
		fmt.Fprintf(w, "[%d] no-op: %s\n", st.Index, st.NoOp)
	}
	if st.Answer != "" {
		fmt.Fprintf(w, "[%d] answer: %s\n", st.Index, compact(st.Answer))
	}
}

// WriteSummary prints how the run ended: the answer, or for an early stop
// the partial-result message followed by every completed step's results;
// then the cost totals.
func WriteSummary(w io.Writer, r *Result) {
	if r.Reason == ReasonComplete {
		fmt.Fprintf(w, "\nAnswer: %s\n", r.Answer)
	} else {
		fmt.Fprintf(w, "\n%s\n", r.Message)
		for _, st := range r.Steps {
			for _, a := range st.Actions {
				fmt.Fprintf(w, "  step %d: %s → %s\n", st.Index, a.Tool, compact(a.Observation))
			}
			if len(st.Actions) == 0 && st.Thought != "" {
				fmt.Fprintf(w, "  step %d: %s\n", st.Index, compact(st.Thought))
			}
		}
	}
	WriteCost(w, "Cost", r.Totals)
}

// WriteCost prints totals on one line, saying when tokens were estimated.
func WriteCost(w io.Writer, label string, t Totals) {
	note := ""
	if t.Estimated {
		note = "; the server reported no usage, so tokens were estimated from characters"
	}
	fmt.Fprintf(w, "%s: $%.6f (%d input + %d output tokens, %d LLM requests%s)\n", label, t.USD, t.InputTokens, t.OutputTokens, t.Requests, note)
}

// compact puts s on one bounded line.
func compact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > compactLen {
		return string(r[:compactLen]) + "…"
	}
	return s
}
