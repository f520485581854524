//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/weft-dev/weft/internal/plan"
)

// shape is a DAG to measure: the plan and how long each step's tool sleeps.
type shape struct {
	name  string
	steps int
	deps  [][]int         // depends_on per step (1-based indexes)
	dur   []time.Duration // sleep per step
}

// build makes the plan; with zero the tool returns at once.
func (s shape) build(zero bool) *plan.Plan {
	p := &plan.Plan{ID: "bench", Title: s.name}
	for i := range s.steps {
		ms := s.dur[i].Microseconds()
		if zero {
			ms = 0
		}
		p.Steps = append(p.Steps, plan.Step{Index: i + 1, Title: fmt.Sprint("s", i+1), DependsOn: s.deps[i],
			ResultVariable: fmt.Sprint("r", i+1),
			ToolCalls:      []plan.ToolCall{{Name: "sleep", Args: map[string]any{"us": json.Number(fmt.Sprint(ms))}}}})
	}
	return p
}

// critical is the longest path, the least time any scheduler needs, and
// the sleeps along it.
func (s shape) critical() (time.Duration, []time.Duration) {
	finish := make([]time.Duration, s.steps)
	prev := make([]int, s.steps)
	last := 0
	for i := range s.steps {
		var start time.Duration
		prev[i] = -1
		for _, d := range s.deps[i] {
			if finish[d-1] > start {
				start, prev[i] = finish[d-1], d-1
			}
		}
		finish[i] = start + s.dur[i]
		if finish[i] > finish[last] {
			last = i
		}
	}
	var path []time.Duration
	for i := last; i >= 0; i = prev[i] {
		path = append(path, s.dur[i])
	}
	return finish[last], path
}

func chain(n int, d time.Duration) shape {
	s := shape{name: fmt.Sprintf("chain(%d)", n), steps: n}
	for i := range n {
		var deps []int
		if i > 0 {
			deps = []int{i}
		}
		s.deps, s.dur = append(s.deps, deps), append(s.dur, d)
	}
	return s
}

func fanOut(n int, d time.Duration) shape {
	s := shape{name: fmt.Sprintf("fan-out(%d)", n), steps: n}
	for range n {
		s.deps, s.dur = append(s.deps, nil), append(s.dur, d)
	}
	return s
}

// diamond is 1 → 2..width+1 → width+2.
func diamond(width int, d time.Duration) shape {
	s := shape{name: fmt.Sprintf("diamond(%d)", width), steps: width + 2}
	s.deps = append(s.deps, nil)
	var mid []int
	for i := range width {
		s.deps = append(s.deps, []int{1})
		mid = append(mid, i+2)
	}
	s.deps = append(s.deps, mid)
	for range s.steps {
		s.dur = append(s.dur, d)
	}
	return s
}

// straggler is A → B → D and A → C, C three times as slow as the others.
func straggler(unit time.Duration) shape {
	return shape{name: "straggler", steps: 4, deps: [][]int{nil, {1}, {1}, {2}},
		dur: []time.Duration{unit, unit, 3 * unit, unit}}
}

// randomDAG links each step to up to 3 of the 20 before it, with sleeps
// between lo and hi; the seed makes it the same DAG every time.
func randomDAG(n int, lo, hi time.Duration) shape {
	r := rand.New(rand.NewPCG(42, 7))
	s := shape{name: fmt.Sprintf("random DAG(%d)", n), steps: n}
	for i := range n {
		var deps []int
		seen := map[int]bool{}
		for k := r.IntN(4); k > 0 && i > 0; k-- {
			d := max(1, i+1-1-r.IntN(min(i, 20)))
			if !seen[d] {
				seen[d] = true
				deps = append(deps, d)
			}
		}
		s.deps = append(s.deps, deps)
		s.dur = append(s.dur, lo+time.Duration(r.Int64N(int64(hi-lo))))
	}
	return s
}

// width is the most steps that can run at once in the ideal schedule, a
// safe max_parallel for the bound to hold.
func (s shape) width() int { return s.steps }
