package plan

import (
	"context"
	"fmt"
	"testing"
)

// randomish builds n zero-time steps, each depending on up to 3 of the 20
// before it, every step using the result of one dependency.
func randomish(n int) *Plan {
	p := &Plan{ID: "bench", Title: "bench"}
	for i := 1; i <= n; i++ {
		s := Step{Index: i, Title: "s", ResultVariable: fmt.Sprint("r", i),
			ToolCalls: []ToolCall{{Name: "sleep", Args: map[string]any{"ms": jsonNum(0)}}}}
		for k := 1; k <= 3 && i-k*7 > 0; k++ {
			s.DependsOn = append(s.DependsOn, i-k*7)
		}
		if len(s.DependsOn) > 0 {
			s.ToolCalls[0].Args["in"] = fmt.Sprintf("${r%d.out}", s.DependsOn[0])
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

// BenchmarkSchedulerOverhead reports the executor's cost per step (ns/step)
// with a tool that returns at once and no checkpoint.
func BenchmarkSchedulerOverhead(b *testing.B) {
	for _, n := range []int{100, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := randomish(n)
			f := newFake()
			for b.Loop() {
				if _, err := Run(context.Background(), f, p, Options{MaxParallel: n}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/step")
		})
	}
}

// BenchmarkCheckpoint reports the cost of one checkpoint write of a
// 200-step run's state.
func BenchmarkCheckpoint(b *testing.B) {
	p := randomish(200)
	cp, err := Run(context.Background(), newFake(), p, Options{})
	if err != nil {
		b.Fatal(err)
	}
	s := &Store{Dir: b.TempDir()}
	for b.Loop() {
		if err := s.SaveCheckpoint(cp); err != nil {
			b.Fatal(err)
		}
	}
}

// bigChain builds a chain of n steps, each returning size bytes.
func bigChain(n, size int) *Plan {
	p := &Plan{ID: "chain", Title: "chain"}
	for i := 1; i <= n; i++ {
		s := Step{Index: i, Title: "s", ResultVariable: fmt.Sprint("r", i),
			ToolCalls: []ToolCall{{Name: "big", Args: map[string]any{"bytes": jsonNum(size)}}}}
		if i > 1 {
			s.DependsOn = []int{i - 1}
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

// BenchmarkCheckpointedChain runs an 80-step chain with a checkpoint after
// every step, for results of 1 KB and 1 MB: a step should cost its own
// result, not the sum of all results so far.
func BenchmarkCheckpointedChain(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("80x%dKB", size>>10), func(b *testing.B) {
			p := bigChain(80, size)
			for b.Loop() {
				s := &Store{Dir: b.TempDir()}
				if _, err := Run(context.Background(), newFake(), p, Options{Checkpoint: s.Checkpointer()}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
