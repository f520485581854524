package plan

import (
	"container/heap"
	"fmt"
	"strings"
)

// graph is the dependency structure of a plan, by position in Plan.Steps.
type graph struct {
	pos      map[int]int // step index → position
	deps     [][]int     // positions each step waits for (deduplicated)
	children [][]int     // positions waiting for each step
	order    []int       // a topological order, lowest index first among ready steps
	prio     []int       // steps on the longest path from each step to the end
}

// buildGraph indexes the plan. It reports duplicate indexes, unknown
// dependencies and cycles as problems; order and prio are only filled when
// there are none.
func buildGraph(p *Plan) (*graph, []Problem) {
	g := &graph{pos: make(map[int]int, len(p.Steps)), deps: make([][]int, len(p.Steps)), children: make([][]int, len(p.Steps))}
	var probs []Problem
	for i, s := range p.Steps {
		if s.Index < 1 {
			probs = append(probs, problem(&p.Steps[i], "has index %d; number steps from 1", s.Index))
			continue
		}
		if _, dup := g.pos[s.Index]; dup {
			probs = append(probs, problem(&p.Steps[i], "has the same index as another step; give each step its own index"))
			continue
		}
		g.pos[s.Index] = i
	}
	for i := range p.Steps {
		probs = append(probs, g.link(p, i)...)
	}
	if len(probs) > 0 {
		return g, probs
	}
	if cyc := g.topo(p); cyc != nil {
		return g, []Problem{cycleProblem(p, cyc)}
	}
	g.priorities()
	return g, nil
}

// link records the dependencies of the step at position i.
func (g *graph) link(p *Plan, i int) []Problem {
	s := &p.Steps[i]
	var probs []Problem
	seen := map[int]bool{}
	for _, d := range s.DependsOn {
		j, ok := g.pos[d]
		switch {
		case !ok:
			probs = append(probs, problem(s, "depends on step %d, which the plan does not have; fix depends_on", d))
		case d == s.Index:
			probs = append(probs, problem(s, "depends on itself; remove %d from its depends_on", d))
		case !seen[j] && g.pos[s.Index] == i:
			seen[j] = true
			g.deps[i] = append(g.deps[i], j)
			g.children[j] = append(g.children[j], i)
		}
	}
	return probs
}

// topo fills g.order (Kahn's algorithm, lowest index first). It returns the
// positions of one cycle when the plan has one.
func (g *graph) topo(p *Plan) []int {
	n := len(p.Steps)
	waiting := make([]int, n)
	ready := &posHeap{less: byIndex(p)}
	for i := range n {
		waiting[i] = len(g.deps[i])
		if waiting[i] == 0 {
			heap.Push(ready, i)
		}
	}
	g.order = make([]int, 0, n)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		g.order = append(g.order, i)
		for _, c := range g.children[i] {
			if waiting[c]--; waiting[c] == 0 {
				heap.Push(ready, c)
			}
		}
	}
	if len(g.order) == n {
		return nil
	}
	return g.findCycle(waiting)
}

// findCycle follows unmet dependencies among the steps left waiting until a
// step repeats.
func (g *graph) findCycle(waiting []int) []int {
	start := -1
	for i, w := range waiting {
		if w > 0 {
			start = i
			break
		}
	}
	seenAt := map[int]int{}
	var path []int
	for cur := start; ; {
		if at, ok := seenAt[cur]; ok {
			return path[at:]
		}
		seenAt[cur] = len(path)
		path = append(path, cur)
		for _, d := range g.deps[cur] {
			if waiting[d] > 0 {
				cur = d
				break
			}
		}
	}
}

func cycleProblem(p *Plan, cyc []int) Problem {
	// cyc lists each step followed by one it depends on; show it in
	// execution order: a → b means b runs after a.
	names := make([]string, 0, len(cyc)+1)
	for i := len(cyc) - 1; i >= 0; i-- {
		names = append(names, fmt.Sprint(p.Steps[cyc[i]].Index))
	}
	names = append(names, names[0])
	first := &p.Steps[cyc[len(cyc)-1]]
	return Problem{Step: first.Index, Title: first.Title,
		Message: fmt.Sprintf("is part of a dependency cycle (%s); remove one of those dependencies", strings.Join(names, " → "))}
}

// priorities computes, for each step, how many steps lie on the longest
// chain from it to the end: the scheduler starts long chains first when
// max_parallel leaves it a choice.
func (g *graph) priorities() {
	g.prio = make([]int, len(g.order))
	for k := len(g.order) - 1; k >= 0; k-- {
		i := g.order[k]
		best := 0
		for _, c := range g.children[i] {
			best = max(best, g.prio[c])
		}
		g.prio[i] = best + 1
	}
}

// ancestors returns, for each position, the set of positions it depends on
// directly or through other steps, as bitsets. It needs g.order.
func (g *graph) ancestors() []bitset {
	words := (len(g.deps) + 63) / 64
	out := make([]bitset, len(g.deps))
	for _, i := range g.order {
		set := make(bitset, words)
		for _, d := range g.deps[i] {
			set[d/64] |= 1 << (d % 64)
			for w, bits := range out[d] {
				set[w] |= bits
			}
		}
		out[i] = set
	}
	return out
}

// bitset is a set of positions.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }

// posHeap is a heap of step positions in the order less gives.
type posHeap struct {
	less  func(a, b int) bool
	items []int
}

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (h *posHeap) Len() int           { return len(h.items) }
func (h *posHeap) Less(a, b int) bool { return h.less(h.items[a], h.items[b]) }
func (h *posHeap) Swap(a, b int)      { h.items[a], h.items[b] = h.items[b], h.items[a] }
func (h *posHeap) Push(x any)         { h.items = append(h.items, x.(int)) }
func (h *posHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// byIndex orders positions by step index.
func byIndex(p *Plan) func(a, b int) bool {
	return func(a, b int) bool { return p.Steps[a].Index < p.Steps[b].Index }
}

// byPriority orders ready positions: longest remaining chain first, then
// lowest index.
func (g *graph) byPriority(p *Plan) func(a, b int) bool {
	return func(a, b int) bool {
		if g.prio[a] != g.prio[b] {
			return g.prio[a] > g.prio[b]
		}
		return p.Steps[a].Index < p.Steps[b].Index
	}
}
