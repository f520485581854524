package plan

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// svgPlan has a fan-out and join, text that needs escaping and a title
// too long for its box.
var svgPlan = &Plan{ID: "report", Title: `Weekly "report" & <friends>`, Steps: []Step{
	{Index: 1, Title: "Fetch issues", ToolCalls: []ToolCall{{Name: "gh__issues"}}},
	{Index: 2, Title: "PRs", DependsOn: []int{1}, ToolCalls: []ToolCall{{Name: "gh__prs"}}},
	{Index: 3, Title: "a<b> & 'c'", DependsOn: []int{1}, ToolCalls: []ToolCall{{Name: "x__y"}, {Name: "x__z"}}},
	{Index: 4, Title: "Summarise everything that was fetched above", DependsOn: []int{2, 3}, ToolCalls: []ToolCall{{Name: "llm__sum"}}},
}}

// svgShape is what the test reads back from the SVG.
type svgShape struct {
	Steps []struct {
		Index string `xml:"data-index,attr"`
		Rect  struct {
			X string `xml:"x,attr"`
			Y string `xml:"y,attr"`
		} `xml:"rect"`
		Texts []string `xml:"text"`
	} `xml:"g"`
	Edges []struct {
		From string `xml:"data-from,attr"`
		To   string `xml:"data-to,attr"`
	} `xml:"path"`
}

func TestWriteSVGIsXMLWithABoxPerStepAndAnEdgePerDependency(t *testing.T) {
	var b bytes.Buffer
	if err := WritePicture(&b, svgPlan, FormatSVG); err != nil {
		t.Fatal(err)
	}
	var got svgShape
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, b.String())
	}
	if len(got.Steps) != 4 {
		t.Fatalf("%d boxes, want one per step (4)", len(got.Steps))
	}
	edges := map[string]bool{}
	for _, e := range got.Edges {
		edges[e.From+"->"+e.To] = true
	}
	if len(got.Edges) != 4 || !edges["1->2"] || !edges["1->3"] || !edges["2->4"] || !edges["3->4"] {
		t.Errorf("edges %v, want 1->2 1->3 2->4 3->4", edges)
	}
	// Layers: 1 alone, 2 and 3 stacked one column right, 4 right of both.
	x := map[string]string{}
	for _, s := range got.Steps {
		x[s.Index] = s.Rect.X
	}
	if x["1"] == x["2"] || x["2"] != x["3"] || x["3"] == x["4"] {
		t.Errorf("box columns %v: want 1 | 2,3 | 4", x)
	}
	if s := got.Steps[2].Texts; len(s) != 2 || s[0] != "3. a<b> & 'c'" || s[1] != "x__y, x__z" {
		t.Errorf("step 3's text reads back as %q", s)
	}
	if s := got.Steps[3].Texts[0]; !strings.HasSuffix(s, "…") {
		t.Errorf("a long title is not cut to its box: %q", s)
	}
}

func TestWriteSVGIsStable(t *testing.T) {
	var b bytes.Buffer
	if err := WritePicture(&b, svgPlan, FormatSVG); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.svg")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestWriteSVGIsStable -update to write it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("SVG differs from %s (rerun with -update if the change is meant):\n%s", golden, b.String())
	}
}
