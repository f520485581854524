package plan

import (
	"strings"
	"testing"
)

func TestWritePicture(t *testing.T) {
	p := &Plan{ID: "report", Title: `Weekly "report"`, Steps: []Step{
		{Index: 1, Title: "Fetch", ToolCalls: []ToolCall{{Name: "gh__issues"}}},
		{Index: 2, Title: "PRs", DependsOn: []int{1}, ToolCalls: []ToolCall{{Name: "gh__prs"}}},
		{Index: 3, Title: "a<b>", DependsOn: []int{1, 2}, ToolCalls: []ToolCall{{Name: "x__y"}, {Name: "x__z"}}},
	}}
	tests := []struct {
		format string
		want   []string
	}{
		{FormatDOT, []string{`digraph "report" {`, `label="Weekly \"report\""`, `s1 [label="1. Fetch\ngh__issues"];`,
			`s3 [label="3. a<b>\nx__y, x__z"];`, "s1 -> s2;", "s1 -> s3;", "s2 -> s3;"}},
		{FormatMermaid, []string{"flowchart LR", `s1["1. Fetch<br/><small>gh__issues</small>"]`,
			`s3["3. a#lt;b#gt;<br/><small>x__y, x__z</small>"]`, "s1 --> s2", "s2 --> s3"}},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := WritePicture(&b, p, tt.format); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s output lacks %s:\n%s", tt.format, w, b.String())
			}
		}
	}
	if err := WritePicture(&strings.Builder{}, p, "png"); err == nil || !strings.Contains(err.Error(), "mermaid or svg") {
		t.Errorf("unknown format: %v", err)
	}
}
