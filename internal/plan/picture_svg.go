package plan

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// FormatSVG is a self-contained SVG picture, drawn by weft itself.
const FormatSVG = "svg"

// Geometry of the SVG picture, in pixels.
const (
	svgBoxW   = 220
	svgBoxH   = 56
	svgGapX   = 60
	svgGapY   = 24
	svgMargin = 20
	svgTitleH = 28
	svgMaxRun = 30 // runes of a label line before it is cut with an ellipsis
)

// svgLayers gives each step its layer: 0 without dependencies, otherwise
// one more than its deepest dependency. Unknown dependencies and cycles
// (which validation rejects) are ignored rather than looped on.
func svgLayers(p *Plan) map[int]int {
	byIndex := make(map[int]*Step, len(p.Steps))
	for i := range p.Steps {
		byIndex[p.Steps[i].Index] = &p.Steps[i]
	}
	layer := make(map[int]int, len(p.Steps))
	visiting := map[int]bool{}
	var of func(idx int) int
	of = func(idx int) int {
		if l, ok := layer[idx]; ok {
			return l
		}
		s, ok := byIndex[idx]
		if !ok || visiting[idx] {
			return -1
		}
		visiting[idx] = true
		l := 0
		for _, d := range s.DependsOn {
			l = max(l, of(d)+1)
		}
		visiting[idx] = false
		layer[idx] = l
		return l
	}
	for _, s := range p.Steps {
		of(s.Index)
	}
	return layer
}

// svgPoint is a box's top-left corner.
type svgPoint struct{ x, y int }

// svgPlace lays the boxes out left to right by layer, top to bottom in
// plan order within a layer, and returns the picture's size.
func svgPlace(p *Plan) (map[int]svgPoint, int, int) {
	layer := svgLayers(p)
	rows := map[int]int{}
	at := make(map[int]svgPoint, len(p.Steps))
	top := svgMargin
	if p.Title != "" {
		top += svgTitleH
	}
	width, height := 2*svgMargin+svgBoxW, top+svgMargin
	for _, s := range p.Steps {
		l := layer[s.Index]
		pt := svgPoint{svgMargin + l*(svgBoxW+svgGapX), top + rows[l]*(svgBoxH+svgGapY)}
		rows[l]++
		at[s.Index] = pt
		width = max(width, pt.x+svgBoxW+svgMargin)
		height = max(height, pt.y+svgBoxH+svgMargin)
	}
	return at, width, height
}

func writeSVG(w io.Writer, p *Plan) {
	at, width, height := svgPlace(p)
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">`+"\n", width, height, width, height)
	fmt.Fprint(w, `  <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>`+"\n")
	if p.Title != "" {
		fmt.Fprintf(w, `  <text x="%d" y="%d" font-size="16" font-weight="bold">%s</text>`+"\n", svgMargin, svgMargin+16, svgText(p.Title))
	}
	for _, s := range p.Steps {
		to := at[s.Index]
		for _, d := range s.DependsOn {
			from, ok := at[d]
			if !ok {
				continue
			}
			x1, y1, x2, y2 := from.x+svgBoxW, from.y+svgBoxH/2, to.x, to.y+svgBoxH/2
			fmt.Fprintf(w, `  <path class="edge" data-from="%d" data-to="%d" d="M%d,%d C%d,%d %d,%d %d,%d" fill="none" stroke="#555" marker-end="url(#arrow)"/>`+"\n",
				d, s.Index, x1, y1, x1+svgGapX/2, y1, x2-svgGapX/2, y2, x2, y2)
		}
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		pt := at[s.Index]
		title, tools := stepLabel(s)
		fmt.Fprintf(w, `  <g class="step" data-index="%d"><title>%s</title>`, s.Index, svgText(title+"\n"+tools))
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#f4f6fa" stroke="#334"/>`, pt.x, pt.y, svgBoxW, svgBoxH)
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="13">%s</text>`, pt.x+10, pt.y+23, svgText(svgCut(title)))
		fmt.Fprintf(w, `<text x="%d" y="%d" font-size="11" fill="#556">%s</text></g>`+"\n", pt.x+10, pt.y+42, svgText(svgCut(tools)))
	}
	fmt.Fprintln(w, "</svg>")
}

// svgText escapes s for XML character data and attribute values.
func svgText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}

// svgCut shortens a label line to fit its box; the full text is in the
// step's <title>, which viewers show on hover.
func svgCut(s string) string {
	r := []rune(s)
	if len(r) <= svgMaxRun {
		return s
	}
	return string(r[:svgMaxRun-1]) + "…"
}
