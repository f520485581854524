package plan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/toolset"
)

// TestParseMCPCLIPlans reads plans exactly as mcp-cli saves them: string
// indexes and dependencies, uuids on steps and tool calls, metadata, bare
// tool names that --map everything= puts in weft's namespace.
func TestParseMCPCLIPlans(t *testing.T) {
	catalog := []toolset.Tool{{Name: "everything__echo", Server: "everything"}, {Name: "everything__get-sum", Server: "everything"}}
	files, _ := filepath.Glob(filepath.Join("testdata", "mcp-cli", "plans", "*.json"))
	if len(files) != 2 {
		t.Fatalf("%d fixtures, want 2", len(files))
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if want := strings.TrimSuffix(filepath.Base(file), ".json"); p.ID != want || !ValidID(p.ID) {
			t.Errorf("%s: id %q, want %q", file, p.ID, want)
		}
		if err := Validate(p, catalog); err == nil {
			t.Errorf("%s: bare tool names validated without a --map rule", file)
		}
		p.MapTools([]ToolMap{{Server: "everything"}})
		if err := Validate(p, catalog); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		s2 := p.Steps[1]
		if p.Steps[0].Index != 1 || s2.Index != 2 || !reflect.DeepEqual(s2.DependsOn, []int{1}) {
			t.Errorf("%s: indexes %d, %d, depends_on %v; want 1, 2, [1]", file, p.Steps[0].Index, s2.Index, s2.DependsOn)
		}
		if len(s2.ID) != 36 || len(s2.ToolCalls[0].ID) != 36 || p.Metadata == nil {
			t.Errorf("%s: step id %q, call id %q, metadata %v: ids and metadata must be kept", file, s2.ID, s2.ToolCalls[0].ID, p.Metadata)
		}
		// What the store writes reads back the same.
		out, _ := p.Marshal()
		q, err := Parse(out)
		if again, _ := q.Marshal(); err != nil || string(again) != string(out) || q.Steps[1].ToolCalls[0].ID != s2.ToolCalls[0].ID {
			t.Errorf("%s: round trip: %v\n%s\n%s", file, err, again, out)
		}
	}
}

func TestParseStepForms(t *testing.T) {
	for _, tc := range []struct {
		name, steps, err string
		want             Step
	}{
		{"ints", `{"index":2,"title":"t","depends_on":[1],"tool_calls":[{"name":"echo"}]}`, "",
			Step{Index: 2, Title: "t", DependsOn: []int{1}, ToolCalls: []ToolCall{{Name: "echo"}}}},
		{"strings and ints mixed", `{"index":" 2","title":"t","depends_on":["1",3],"tool_calls":[{"id":"c","name":"echo"}]}`, "",
			Step{Index: 2, Title: "t", DependsOn: []int{1, 3}, ToolCalls: []ToolCall{{ID: "c", Name: "echo"}}}},
		{"tool and args", `{"index":"1","title":"t","tool":"echo","args":{"n":1}}`, "",
			Step{Index: 1, Title: "t", ToolCalls: []ToolCall{{Name: "echo", Args: map[string]any{"n": jsonNum(1)}}}}},
		{"sub-step index", `{"index":"1.2","title":"t","tool":"echo"}`, `step index "1.2" is not a whole number`, Step{}},
		{"both forms", `{"index":1,"title":"t","tool":"echo","tool_calls":[{"name":"echo"}]}`, `has both "tool" and "tool_calls"`, Step{}},
		{"unknown key", `{"index":1,"title":"t","depends":[1],"tool_calls":[{"name":"echo"}]}`, `unknown field "depends"`, Step{}},
		{"unknown call key", `{"index":1,"title":"t","tool_calls":[{"name":"echo","arguments":{}}]}`, `unknown field "arguments"`, Step{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(`{"id":"x","title":"x","steps":[` + tc.steps + `]}`))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Steps[0], tc.want) {
				t.Errorf("step %+v, want %+v", p.Steps[0], tc.want)
			}
		})
	}
}

func TestMapTools(t *testing.T) {
	maps, err := ParseToolMaps([]string{"filesystem=", "github=gh_"})
	if err != nil {
		t.Fatal(err)
	}
	p := &Plan{Steps: []Step{{ToolCalls: []ToolCall{{Name: "read_file"}, {Name: "gh_create_issue"}, {Name: "memory__read_graph"}},
		Fallback: &ToolCall{Name: "list_directory"}}}}
	p.MapTools(maps)
	got := []string{p.Steps[0].ToolCalls[0].Name, p.Steps[0].ToolCalls[1].Name, p.Steps[0].ToolCalls[2].Name, p.Steps[0].Fallback.Name}
	want := []string{"filesystem__read_file", "github__create_issue", "memory__read_graph", "filesystem__list_directory"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mapped %v, want %v", got, want)
	}
	for rules, msg := range map[string]string{"filesystem": "write it as SERVER=PREFIX", "=x": "write it as SERVER=PREFIX",
		"a=,b=": `share the prefix ""`} {
		if _, err := ParseToolMaps(strings.Split(rules, ",")); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("--map %s: %v, want %q", rules, err, msg)
		}
	}
}
