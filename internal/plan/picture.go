package plan

import (
	"fmt"
	"io"
	"strings"
)

// Picture formats of a plan's graph for tools outside weft.
const (
	FormatDOT     = "dot"     // Graphviz: dot -Tsvg
	FormatMermaid = "mermaid" // Markdown renderers (GitHub, GitLab)
)

// WritePicture writes the plan's step graph as Graphviz DOT, Mermaid or
// SVG: one node per step (title and tools), one edge per dependency.
func WritePicture(w io.Writer, p *Plan, format string) error {
	switch format {
	case FormatDOT:
		writeDOT(w, p)
	case FormatMermaid:
		writeMermaid(w, p)
	case FormatSVG:
		writeSVG(w, p)
	default:
		return fmt.Errorf("unknown picture format %q; use text, dot, mermaid or svg", format)
	}
	return nil
}

// stepLabel is a step's title and tools, the text inside its node.
func stepLabel(s *Step) (title, tools string) {
	names := make([]string, 0, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		names = append(names, c.Name)
	}
	return fmt.Sprintf("%d. %s", s.Index, s.Title), strings.Join(names, ", ")
}

func writeDOT(w io.Writer, p *Plan) {
	fmt.Fprintf(w, "digraph %q {\n  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n", p.ID)
	if p.Title != "" {
		fmt.Fprintf(w, "  label=%s;\n  labelloc=t;\n", dotQuote(p.Title))
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		title, tools := stepLabel(s)
		fmt.Fprintf(w, "  s%d [label=%s];\n", s.Index, dotQuote(title+"\n"+tools))
	}
	for _, s := range p.Steps {
		for _, d := range s.DependsOn {
			fmt.Fprintf(w, "  s%d -> s%d;\n", d, s.Index)
		}
	}
	fmt.Fprintln(w, "}")
}

// dotQuote quotes a DOT string; \n in s becomes a centred line break.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

func writeMermaid(w io.Writer, p *Plan) {
	fmt.Fprintln(w, "flowchart LR")
	for i := range p.Steps {
		s := &p.Steps[i]
		title, tools := stepLabel(s)
		fmt.Fprintf(w, "  s%d[\"%s<br/><small>%s</small>\"]\n", s.Index, mermaidText(title), mermaidText(tools))
	}
	for _, s := range p.Steps {
		for _, d := range s.DependsOn {
			fmt.Fprintf(w, "  s%d --> s%d\n", d, s.Index)
		}
	}
}

// mermaidText escapes what would end a Mermaid label or open markup.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
}
