package plan

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestStragglerStartsWhenReady: A(1s)→B(1s)→D(1s) and A→C(3s). Level by
// level would take 1+3+1 = 5 s; starting D the moment B completes takes 4 s.
func TestStragglerStartsWhenReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Plan{ID: "straggler", Title: "straggler", Steps: []Step{
			sleepStep(1, 1000), sleepStep(2, 1000, 1), sleepStep(3, 3000, 1), sleepStep(4, 1000, 2),
		}}
		var dDone time.Duration
		start := time.Now()
		_, err := Run(context.Background(), newFake(), p, Options{MaxParallel: 4, Events: func(e Event) {
			if e.Kind == StepDone && e.Step.Index == 4 {
				dDone = time.Since(start)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 4*time.Second {
			t.Errorf("run took %v, want 4s (the critical path A→C)", got)
		}
		if dDone != 3*time.Second {
			t.Errorf("D completed at %v, want 3s: it must start when B completes, not after C", dDone)
		}
	})
}

// TestFanOutRunsInParallel: 20 independent 200 ms steps with max_parallel
// 20 take 200 ms; with max_parallel 5 they take 4 waves.
func TestFanOutRunsInParallel(t *testing.T) {
	for _, tc := range []struct {
		par  int
		want time.Duration
	}{{20, 200 * time.Millisecond}, {5, 800 * time.Millisecond}, {1, 4 * time.Second}} {
		synctest.Test(t, func(t *testing.T) {
			p := &Plan{ID: "fan", Title: "fan"}
			for i := 1; i <= 20; i++ {
				p.Steps = append(p.Steps, sleepStep(i, 200))
			}
			peak := 0
			start := time.Now()
			_, err := Run(context.Background(), newFake(), p, Options{MaxParallel: tc.par, Events: func(e Event) {
				peak = max(peak, e.Running)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Since(start); got != tc.want {
				t.Errorf("max_parallel %d: took %v, want %v", tc.par, got, tc.want)
			}
			if peak > tc.par {
				t.Errorf("max_parallel %d: %d steps ran at once", tc.par, peak)
			}
		})
	}
}

func TestVariablesSubstitution(t *testing.T) {
	p := mustParse(t, `{"id":"vars","title":"vars","variables":{"n":3,"who":"ann","cfg":{"deep":[10,20]}},
	"steps":[
	 {"index":1,"title":"make","tool_calls":[{"name":"sleep","args":{"ms":0,"out":{"list":[{"name":"x"},{"name":"y"}],"count":2}}}],"result_variable":"made"},
	 {"index":2,"title":"use","depends_on":[1],"tool_calls":[{"name":"echo","args":{
	   "whole":"${n}","obj":"${made.out}","second":"${made.out.list.1.name}","text":"hi ${who}, n=${n}, cfg=${cfg.deep}",
	   "lit":"$${n}","deep":"${cfg.deep.1}","nested":["${who}",{"k":"${made.out.count}"}]}}],"result_variable":"echoed"}]}`)
	cp, err := Run(context.Background(), newFake(), p, Options{Vars: map[string]any{"who": "bob"}})
	if err != nil {
		t.Fatal(err)
	}
	got := cp.Variables["echoed"].(map[string]any)
	want := map[string]any{
		"whole": json.Number("3"), "second": "y", "text": `hi bob, n=3, cfg=[10,20]`, "lit": "${n}", "deep": json.Number("20"),
		"obj":    map[string]any{"list": []any{map[string]any{"name": "x"}, map[string]any{"name": "y"}}, "count": json.Number("2")},
		"nested": []any{"bob", map[string]any{"k": json.Number("2")}},
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s = %#v, want %#v", k, got[k], w)
		}
	}
}

func TestResultValue(t *testing.T) {
	f := newFake()
	p := mustParse(t, `{"id":"r","title":"r","steps":[
	 {"index":1,"title":"text json","tool_calls":[{"name":"echo","args":{"a":[1,2]}}],"result_variable":"j"},
	 {"index":2,"title":"two calls","tool_calls":[{"name":"echo","args":{"b":1}},{"name":"sleep","args":{"ms":0}}],"result_variable":"two"}]}`)
	cp, err := Run(context.Background(), f, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cp.Variables["j"]; !reflect.DeepEqual(got, map[string]any{"a": []any{json.Number("1"), json.Number("2")}}) {
		t.Errorf("JSON text result = %#v, want it decoded", got)
	}
	if got := cp.Variables["two"]; !reflect.DeepEqual(got, []any{map[string]any{"b": json.Number("1")}, map[string]any{"out": "ok"}}) {
		t.Errorf("two calls = %#v, want the list of both results", got)
	}
}

func TestFailurePolicies(t *testing.T) {
	const base = `{"id":"f","title":"f","steps":[
	 {"index":1,"title":"bad","tool_calls":[{"name":"%s"}]%s},
	 {"index":2,"title":"after bad","depends_on":[1],"tool_calls":[{"name":"echo"}]},
	 {"index":3,"title":"unrelated","tool_calls":[{"name":"sleep","args":{"ms":0}}],"depends_on":[4]},
	 {"index":4,"title":"first","tool_calls":[{"name":"sleep","args":{"ms":0}}]}]}`
	for _, tc := range []struct {
		name, tool, extra string
		failFirst         int
		status            Status
		completed         []int
		calls             int
	}{
		// With max_parallel 1, step 1 runs first (index order among equal
		// chains), then 4 (longer chain than 2), then 2 and 3.
		{"fail stops scheduling", "fail", ``, 0, StatusFailed, nil, 1},
		{"continue skips dependents only", "fail", `,"on_error":"continue"`, 0, StatusFailed, []int{4, 3}, 3},
		{"fallback replaces the call", "fail", `,"on_error":"fallback","fallback":{"name":"echo","args":{"via":"fb"}}`, 0, StatusCompleted, []int{1, 4, 2, 3}, 5},
		{"retry until it works", "flaky", `,"retry":{"attempts":3,"backoff":"1ms"}`, 2, StatusCompleted, []int{1, 4, 2, 3}, 6},
		{"retry gives up", "flaky", `,"retry":{"attempts":2}`, 5, StatusFailed, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			f.failFirst = tc.failFirst
			p := mustParse(t, sprintf(base, tc.tool, tc.extra))
			cp, _ := Run(context.Background(), f, p, Options{MaxParallel: 1})
			if cp.Status != tc.status {
				t.Errorf("status %s, want %s", cp.Status, tc.status)
			}
			if len(cp.CompletedSteps)+len(tc.completed) > 0 && !reflect.DeepEqual(cp.CompletedSteps, tc.completed) {
				t.Errorf("completed %v, want %v", cp.CompletedSteps, tc.completed)
			}
			if f.total() != tc.calls {
				t.Errorf("%d calls (%v), want %d", f.total(), f.log, tc.calls)
			}
		})
	}
}

// TestFailFinishesWhatRuns: under on_error fail, a step already running when
// another fails completes, and nothing new starts.
func TestFailFinishesWhatRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Plan{ID: "ff", Title: "ff", Steps: []Step{
			{Index: 1, Title: "bad", ToolCalls: []ToolCall{{Name: "fail"}}},
			sleepStep(2, 1000), sleepStep(3, 0, 2),
		}}
		cp, err := Run(context.Background(), newFake(), p, Options{})
		if err == nil || cp.Status != StatusFailed {
			t.Fatalf("status %s err %v, want failed", cp.Status, err)
		}
		if !reflect.DeepEqual(cp.CompletedSteps, []int{2}) {
			t.Errorf("completed %v, want [2]: the running step finishes, its dependent does not start", cp.CompletedSteps)
		}
	})
}

func TestBudgetGuards(t *testing.T) {
	p := &Plan{ID: "b", Title: "b"}
	for i := 1; i <= 5; i++ {
		p.Steps = append(p.Steps, sleepStep(i, 0))
	}
	for _, l := range []Limits{{MaxCalls: 3}, {MaxCallsPerTool: 3}, {PerTool: map[string]int{"sleep": 3}}} {
		f := newFake()
		cp, err := Run(context.Background(), f, p, Options{MaxParallel: 1, Budget: NewBudget(l)})
		if !errors.Is(err, ErrBudget) {
			t.Errorf("%+v: err %v, want ErrBudget", l, err)
		}
		if f.total() != 3 || len(cp.CompletedSteps) != 3 {
			t.Errorf("%+v: %d calls, %d completed; want 3 and 3", l, f.total(), len(cp.CompletedSteps))
		}
	}
}

func TestCancelLeavesStepInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &Plan{ID: "c", Title: "c", Steps: []Step{sleepStep(1, 0), sleepStep(2, 5000, 1)}}
		ctx, cancel := context.WithCancel(context.Background())
		cp, err := Run(ctx, newFake(), p, Options{Events: func(e Event) {
			if e.Kind == StepStarted && e.Step.Index == 2 {
				time.AfterFunc(time.Second, cancel)
			}
		}})
		if err == nil || cp.Status != StatusStopped {
			t.Fatalf("status %s err %v, want stopped", cp.Status, err)
		}
		if got := cp.InFlight(); !reflect.DeepEqual(got, []int{2}) {
			t.Errorf("in flight %v, want [2]", got)
		}
	})
}

func TestMissingPathFailsTheStep(t *testing.T) {
	p := mustParse(t, `{"id":"m","title":"m","steps":[
	 {"index":1,"title":"make","tool_calls":[{"name":"sleep","args":{"ms":0,"out":{"list":[1]}}}],"result_variable":"made"},
	 {"index":2,"title":"use","depends_on":[1],"tool_calls":[{"name":"echo","args":{"x":"${made.out.lists.0}"}}],"retry":{"attempts":3}},
	 {"index":3,"title":"index","depends_on":[1],"tool_calls":[{"name":"echo","args":{"x":"${made.out.list.5}"}}],"on_error":"continue"}]}`)
	f := newFake()
	cp, err := Run(context.Background(), f, p, Options{MaxParallel: 1})
	if err == nil {
		t.Fatal("run succeeded; want step 2 to fail")
	}
	want := map[int]string{
		2: `${made.out.lists.0}: made.out has no field "lists" (it has: list)`,
		3: `${made.out.list.5}: made.out.list has 1 items; index 5 is out of range`,
	}
	for _, fs := range cp.FailedSteps {
		if !strings.Contains(fs.Error, want[fs.Step]) {
			t.Errorf("step %d error %q, want it to contain %q", fs.Step, fs.Error, want[fs.Step])
		}
	}
	if f.count("echo") != 0 {
		t.Errorf("echo called %d times; an unresolved argument must not reach the tool, nor be retried", f.count("echo"))
	}
}
