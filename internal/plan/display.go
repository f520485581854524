package plan

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Render draws the plan as `weft plan show` prints it:
//
//	Plan: Add authentication to REST API (4 steps)
//
//	  1. Read existing app code           [read_file]
//	  2. Analyze dependencies             [search_code]    ← after: 1
//
//	Variables: app_code (step 1), deps (step 2)
func Render(w io.Writer, p *Plan) {
	fmt.Fprintf(w, "Plan: %s (%s)\n\n", p.Title, plural(len(p.Steps), "step"))
	titleW, toolW, numW := 0, 0, 0
	for _, s := range p.Steps {
		titleW = max(titleW, utf8.RuneCountInString(s.Title))
		toolW = max(toolW, utf8.RuneCountInString(toolList(&s)))
		numW = max(numW, len(fmt.Sprint(s.Index)))
	}
	for _, s := range p.Steps {
		line := fmt.Sprintf("  %*d. %s   %s", numW, s.Index, pad(s.Title, titleW), pad(toolList(&s), toolW))
		if len(s.DependsOn) > 0 {
			line += "    ← after: " + joinInts(s.DependsOn, ", ")
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	var vars []string
	for _, s := range p.Steps {
		if s.ResultVariable != "" {
			vars = append(vars, fmt.Sprintf("%s (step %d)", s.ResultVariable, s.Index))
		}
	}
	if len(vars) > 0 {
		fmt.Fprintf(w, "\nVariables: %s\n", strings.Join(vars, ", "))
	}
	if len(p.Variables) > 0 {
		var ins []string
		for _, k := range sortedKeys(p.Variables) {
			ins = append(ins, k+"="+textOf(p.Variables[k]))
		}
		fmt.Fprintf(w, "Inputs: %s\n", strings.Join(ins, ", "))
	}
}

// toolList is the bracketed tools of a step: [a], or [a, b] for several.
func toolList(s *Step) string {
	names := make([]string, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		names = append(names, c.Name)
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func joinInts(xs []int, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}

// joinAnd lists items as "a", "a and b" or "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
