package plan

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateTable(t *testing.T) {
	const ok1 = `{"index":1,"title":"one","tool_calls":[{"name":"echo"}],"result_variable":"r1"}`
	for _, tc := range []struct{ name, steps, vars, want string }{
		{"unknown dependency", ok1 + `,{"index":2,"title":"two","depends_on":[7],"tool_calls":[{"name":"echo"}]}`, ``,
			`step 2 "two" depends on step 7, which the plan does not have`},
		{"cycle", `{"index":1,"title":"a","depends_on":[3],"tool_calls":[{"name":"echo"}]},{"index":2,"title":"b","depends_on":[1],"tool_calls":[{"name":"echo"}]},{"index":3,"title":"c","depends_on":[2],"tool_calls":[{"name":"echo"}]}`, ``,
			`step 2 "b" is part of a dependency cycle (2 → 3 → 1 → 2)`},
		{"self dependency", `{"index":1,"title":"a","depends_on":[1],"tool_calls":[{"name":"echo"}]}`, ``, `step 1 "a" depends on itself`},
		{"duplicate index", ok1 + `,{"index":1,"title":"dup","tool_calls":[{"name":"echo"}]}`, ``, `step 1 "dup" has the same index as another step`},
		{"zero index", `{"index":0,"title":"z","tool_calls":[{"name":"echo"}]}`, ``, `step 0 "z" has index 0; number steps from 1`},
		{"unknown tool", `{"index":1,"title":"x","tool_calls":[{"name":"read_file"}]}`, ``, `step 1 "x" calls unknown tool "read_file" (did you mean fs__read_file?)`},
		{"unresolvable variable", `{"index":1,"title":"x","tool_calls":[{"name":"echo","args":{"a":"${nope}"}}]}`, ``,
			`step 1 "x" uses ${nope}, but no plan variable or step result_variable is called "nope"`},
		{"result without dependency", ok1 + `,{"index":2,"title":"two","tool_calls":[{"name":"echo","args":{"a":"${r1.x}"}}]}`, ``,
			`step 2 "two" uses ${r1.x}, the result of step 1, but does not depend on step 1; add 1 to its depends_on`},
		{"bad reference", `{"index":1,"title":"x","tool_calls":[{"name":"echo","args":{"a":"${a b}"}}]}`, ``, `step 1 "x" has an argument with ${a b} is not a reference`},
		{"no steps", ``, ``, `plan has no steps`},
		{"no tool calls", `{"index":1,"title":"x","tool_calls":[]}`, ``, `step 1 "x" has no tool_calls`},
		{"fallback missing", `{"index":1,"title":"x","tool_calls":[{"name":"echo"}],"on_error":"fallback"}`, ``, `has on_error "fallback" but no fallback call`},
		{"bad policy", `{"index":1,"title":"x","tool_calls":[{"name":"echo"}],"on_error":"ignore"}`, ``, `has on_error "ignore"; use fail, continue or fallback`},
		{"duplicate result", ok1 + `,{"index":2,"title":"two","tool_calls":[{"name":"echo"}],"result_variable":"r1"}`, ``, `step 2 "two" has result_variable "r1", like step 1`},
		{"result shadows variable", ok1, `"variables":{"r1":1},`, `has result_variable "r1", the name of a plan variable`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, `{"id":"v","title":"v",`+tc.vars+`"steps":[`+tc.steps+`]}`)
			tools := append(newFake().Tools(), fsRead)
			err := Validate(p, tools)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err %v, want a *ValidationError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
		})
	}
}

func TestValidateAcceptsGoodPlan(t *testing.T) {
	p := mustParse(t, `{"id":"ok","title":"ok","variables":{"n":1},"steps":[
	 {"index":1,"title":"a","tool_calls":[{"name":"echo","args":{"n":"${n}"}}],"result_variable":"a"},
	 {"index":2,"title":"b","depends_on":[1],"tool_calls":[{"name":"echo"}]},
	 {"index":3,"title":"c","depends_on":[2],"tool_calls":[{"name":"echo","args":{"x":"${a.deep.0}"}}]}]}`)
	if err := Validate(p, newFake().Tools()); err != nil {
		t.Fatal(err)
	}
}

func TestParseRefusesUnknownFields(t *testing.T) {
	_, err := Parse([]byte(`{"id":"x","title":"x","steps":[{"index":1,"depends":[2]}]}`))
	if err == nil || !strings.Contains(err.Error(), `unknown field "depends"`) {
		t.Errorf("err %v, want unknown field named", err)
	}
}
