package plan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func chainPlan() *Plan {
	p := &Plan{ID: "chain", Title: "chain"}
	for i := 1; i <= 4; i++ {
		s := Step{Index: i, Title: "s", ToolCalls: []ToolCall{{Name: "echo", Args: map[string]any{"i": i}}}, ResultVariable: "r" + string(rune('0'+i))}
		if i > 1 {
			s.DependsOn = []int{i - 1}
		}
		p.Steps = append(p.Steps, s)
	}
	return p
}

// crashed is the checkpoint of a run of chainPlan killed while step 3 ran.
func crashed(p *Plan) *Checkpoint {
	return &Checkpoint{PlanID: p.ID, PlanHash: p.Hash(), Status: StatusRunning, StartedAt: time.Now(),
		CompletedSteps: []int{1, 2}, StartedSteps: []int{1, 2, 3},
		Variables: map[string]any{"r1": map[string]any{"i": 1}, "r2": map[string]any{"i": 2}}, Calls: map[string]int{"echo": 3}}
}

func TestResumeRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		idem      bool
		rerun     bool
		wantErr   string
		wantCalls []string
	}{
		{"in-flight non-idempotent step stops resume and is named", false, false, `step 3 "s" started but did not complete`, nil},
		{"idempotent in-flight step re-runs", true, false, "", []string{`echo {"i":3}`, `echo {"i":4}`}},
		{"--rerun-inflight re-runs it", false, true, "", []string{`echo {"i":3}`, `echo {"i":4}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := chainPlan()
			f := newFake()
			f.idem = map[string]bool{"echo": tc.idem}
			cp, err := Run(context.Background(), f, p, Options{Resume: crashed(p), RerunInflight: tc.rerun})
			if tc.wantErr != "" {
				var ie *InflightError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want an InflightError containing %q", err, tc.wantErr)
				}
				if f.total() != 0 {
					t.Errorf("%d calls, want none", f.total())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.log, tc.wantCalls) {
				t.Errorf("calls %v, want %v: completed steps must not run again", f.log, tc.wantCalls)
			}
			if cp.Status != StatusCompleted || len(cp.Variables) != 4 {
				t.Errorf("status %s vars %v", cp.Status, cp.Variables)
			}
		})
	}
}

func TestResumeRefusesChangedPlan(t *testing.T) {
	p := chainPlan()
	cp := crashed(p)
	p.Steps[3].ToolCalls[0].Args["i"] = 40
	_, err := Run(context.Background(), newFake(), p, Options{Resume: cp, RerunInflight: true})
	if !errors.Is(err, ErrChanged) {
		t.Errorf("err %v, want ErrChanged", err)
	}
}

// TestResumeAfterEveryCheckpoint replays a run from each checkpoint it
// wrote, as if killed right after that write: every resume ends with the
// variables of the uninterrupted run and re-runs no completed step.
func TestResumeAfterEveryCheckpoint(t *testing.T) {
	p := mustParse(t, `{"id":"d","title":"diamond","variables":{"x":1},"steps":[
	 {"index":1,"title":"a","tool_calls":[{"name":"echo","args":{"x":"${x}"}}],"result_variable":"a"},
	 {"index":2,"title":"b","depends_on":[1],"tool_calls":[{"name":"echo","args":{"from":"${a.x}"}}],"result_variable":"b"},
	 {"index":3,"title":"c","depends_on":[1],"tool_calls":[{"name":"echo","args":{"y":"a=${a}"}}],"result_variable":"c"},
	 {"index":4,"title":"d","depends_on":[2,3],"tool_calls":[{"name":"echo","args":{"b":"${b}","c":"${c.y}"}}],"result_variable":"d"}]}`)
	var saved []*Checkpoint
	store := &Store{Dir: t.TempDir()}
	save := store.Checkpointer()
	full, err := Run(context.Background(), newFake(), p, Options{Checkpoint: func(cp *Checkpoint) error {
		if err := save(cp); err != nil {
			return err
		}
		// What a process started after a kill at this moment would read.
		got, _, err := store.LoadCheckpoint("d")
		saved = append(saved, got)
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, cp := range saved {
		f := newFake()
		got, err := Run(context.Background(), f, p, Options{Resume: cp, RerunInflight: true})
		if err != nil {
			t.Fatalf("resume from checkpoint %d: %v", i, err)
		}
		if !reflect.DeepEqual(got.Variables, full.Variables) {
			t.Errorf("checkpoint %d: variables %v, want %v", i, got.Variables, full.Variables)
		}
		if want := len(p.Steps) - len(cp.CompletedSteps); f.total() != want {
			t.Errorf("checkpoint %d: %d calls, want %d (only steps not completed)", i, f.total(), want)
		}
	}
}

func TestCheckpointKeepsWholeResults(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	p := &Plan{ID: "big", Title: "big", Steps: []Step{{Index: 1, Title: "b", ResultVariable: "big",
		ToolCalls: []ToolCall{{Name: "sleep", Args: map[string]any{"ms": jsonNum(0), "out": big}}}}}}
	store := &Store{Dir: t.TempDir()}
	if _, err := Run(context.Background(), newFake(), p, Options{Checkpoint: store.Checkpointer()}); err != nil {
		t.Fatal(err)
	}
	cp, ok, err := store.LoadCheckpoint("big")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if got := cp.Variables["big"].(map[string]any)["out"]; got != big {
		t.Errorf("result kept %d bytes, want %d", len(got.(string)), len(big))
	}
}

// TestCheckpointWritesEachResultOnce counts the bytes a checkpointed run
// writes through the store: each step adds its own result and a small
// checkpoint, never a rewrite of the results before it.
func TestCheckpointWritesEachResultOnce(t *testing.T) {
	const steps, size = 20, 64 << 10
	var total, biggestCheckpoint int
	store := &Store{Dir: t.TempDir()}
	store.wrote = func(path string, n int) {
		total += n
		if strings.HasSuffix(path, checkpointSuffix) {
			biggestCheckpoint = max(biggestCheckpoint, n)
		}
	}
	cp, err := Run(context.Background(), newFake(), bigChain(steps, size), Options{Checkpoint: store.Checkpointer()})
	if err != nil {
		t.Fatal(err)
	}
	// 4 KB per step covers the checkpoint itself, which lists every step.
	if limit := steps * (size + 4<<10); total > limit {
		t.Errorf("wrote %d bytes for %d steps of %d bytes, want at most %d", total, steps, size, limit)
	}
	if biggestCheckpoint > 4<<10 {
		t.Errorf("a checkpoint took %d bytes: it should refer to results, not hold them", biggestCheckpoint)
	}
	got, _, err := store.LoadCheckpoint("chain")
	if err != nil || !reflect.DeepEqual(got.Variables, cp.Variables) {
		t.Errorf("reloaded variables differ from the run's (%v)", err)
	}
}

// TestResumeOldCheckpoint resumes a checkpoint written with its variables
// inline, as weft wrote them before results had their own files.
func TestResumeOldCheckpoint(t *testing.T) {
	store := &Store{Dir: t.TempDir()}
	p := bigChain(3, 10)
	full, err := Run(context.Background(), newFake(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(`{"plan_id":"chain","plan_hash":%q,"status":"running","completed_steps":[1],"started_steps":[1],`+
		`"variables":{"r1":{"out":"xxxxxxxxxx"}}}`, p.Hash())
	if err := os.WriteFile(filepath.Join(store.Dir, "chain"+checkpointSuffix), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	cp, ok, err := store.LoadCheckpoint("chain")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	f := newFake()
	got, err := Run(context.Background(), f, p, Options{Resume: cp, Checkpoint: store.Checkpointer()})
	if err != nil {
		t.Fatal(err)
	}
	if f.total() != 2 || !reflect.DeepEqual(got.Variables, full.Variables) {
		t.Errorf("%d calls, variables %v; want 2 calls and %v", f.total(), got.Variables, full.Variables)
	}
}
