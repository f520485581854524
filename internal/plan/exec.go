package plan

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/toolset"
)

// Idempotency is optionally implemented by a toolset.Caller that knows the
// tools' annotations; resume re-runs an interrupted step on its own only when
// every tool it calls is idempotent.
type Idempotency interface {
	Idempotent(tool string) bool
}

// Options tune a run.
type Options struct {
	// MaxParallel bounds the steps running at once; 0 means 4.
	MaxParallel int
	// Vars override the plan's variable defaults (ignored on resume: the
	// checkpoint holds the run's variables).
	Vars map[string]any
	// Budget guards the run's tool calls; nil means no limit. The
	// agent passes its own so that its plans share one budget.
	Budget *Budget
	// Checkpoint is called with the run's state after every change; an
	// error stops the run. Nil keeps no checkpoint.
	Checkpoint func(*Checkpoint) error
	// Resume continues the run this checkpoint describes.
	Resume *Checkpoint
	// RerunInflight re-runs steps that were in flight when the run was
	// killed even when their tools are not idempotent.
	RerunInflight bool
	// Events receives progress; it is called from the run's own goroutine,
	// one event at a time, and must not block for long.
	Events func(Event)
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// DefaultMaxParallel is the parallelism of a run that does not set one.
const DefaultMaxParallel = 4

// InflightError names the steps that were running when a run was killed and
// that resume will not re-run on its own.
type InflightError struct{ Steps []string }

// Error names the steps and says how to go on.
func (e *InflightError) Error() string {
	return fmt.Sprintf("%s started but did not complete before the run stopped, and re-running may repeat its effect; "+
		"check it, then resume with --rerun-inflight", joinAnd(e.Steps))
}

// ErrChanged reports a resume of a plan edited since its run started.
var ErrChanged = errors.New("the plan changed since its run started")

// Run executes the plan and returns the final state. The error
// is nil when every step completed; otherwise it says what failed.
func Run(ctx context.Context, c toolset.Caller, p *Plan, opts Options) (*Checkpoint, error) {
	if err := Validate(p, nil); err != nil {
		return nil, err
	}
	g, _ := buildGraph(p)
	r, err := newRunner(c, p, g, opts)
	if err != nil {
		return nil, err
	}
	return r.run(ctx)
}

// stepDone is what a worker reports.
type stepDone struct {
	pos     int
	result  any
	err     error
	calls   map[string]int
	elapsed time.Duration
}

type runner struct {
	c       toolset.Caller
	p       *Plan
	g       *graph
	opts    Options
	cp      *Checkpoint
	budget  *Budget
	waiting []int // unmet dependencies per position
	ready   *posHeap
	running int
	done    chan stepDone
	ctxErr  func() error
	evMu    sync.Mutex // serialises Events between the coordinator and retrying workers
	pending []Event    // events waiting for the next save
	refs    [][]string // variable names each step refers to, by position
	fatal   error      // the failure that stops scheduling
	begun   time.Time
}

func newRunner(c toolset.Caller, p *Plan, g *graph, opts Options) (*runner, error) {
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = DefaultMaxParallel
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Budget == nil {
		opts.Budget = NewBudget(Limits{})
	}
	r := &runner{c: c, p: p, g: g, opts: opts, budget: opts.Budget, done: make(chan stepDone), refs: stepRefs(p)}
	r.ready = &posHeap{less: g.byPriority(p)}
	cp, err := r.initialState()
	if err != nil {
		return nil, err
	}
	r.cp = cp
	r.waiting = make([]int, len(p.Steps))
	for i, s := range p.Steps {
		if cp.Completed(s.Index) {
			continue
		}
		for _, d := range g.deps[i] {
			if !cp.Completed(p.Steps[d].Index) {
				r.waiting[i]++
			}
		}
		if r.waiting[i] == 0 {
			heap.Push(r.ready, i)
		}
	}
	return r, nil
}

// initialState starts a fresh checkpoint, or takes up the one to resume
// after checking that its in-flight steps may run again.
func (r *runner) initialState() (*Checkpoint, error) {
	now := r.opts.Now().UTC()
	prev := r.opts.Resume
	if prev == nil {
		vars := r.p.WithVars(r.opts.Vars).Variables
		return &Checkpoint{PlanID: r.p.ID, PlanHash: r.p.Hash(), Status: StatusRunning, StartedAt: now, UpdatedAt: now,
			CompletedSteps: []int{}, StartedSteps: []int{}, Variables: vars, Calls: map[string]int{}}, nil
	}
	if prev.PlanHash != r.p.Hash() {
		return nil, fmt.Errorf("%w (plan %s); run it afresh with `weft plan run %s`", ErrChanged, r.p.ID, r.p.ID)
	}
	if err := r.checkInflight(prev); err != nil {
		return nil, err
	}
	cp := prev.clone()
	cp.Status = StatusRunning
	cp.UpdatedAt = now
	cp.FailedSteps, cp.SkippedSteps = nil, nil
	// Steps that did not complete start over: keep only completed ones.
	cp.StartedSteps = slices.DeleteFunc(cp.StartedSteps, func(s int) bool { return !cp.Completed(s) })
	r.budget.Spend(cp.Calls)
	return cp, nil
}

func (r *runner) checkInflight(prev *Checkpoint) error {
	if r.opts.RerunInflight {
		return nil
	}
	idem, _ := r.c.(Idempotency)
	var refused []string
	for _, idx := range prev.InFlight() {
		s, ok := r.p.Step(idx)
		if !ok {
			continue
		}
		safe := idem != nil
		for _, t := range s.tools() {
			safe = safe && idem.Idempotent(t)
		}
		if !safe {
			refused = append(refused, s.label())
		}
	}
	if len(refused) > 0 {
		return &InflightError{Steps: refused}
	}
	return nil
}

// run is the coordinator: it alone touches the state, starting each step the
// moment its last dependency completes, up to MaxParallel at once. Each
// round saves one checkpoint that records the steps just finished and the
// steps about to start, before any of those starts calling a tool.
func (r *runner) run(ctx context.Context) (*Checkpoint, error) {
	r.begun = r.opts.Now()
	r.ctxErr = ctx.Err
	for {
		batch := r.pick(ctx)
		if err := r.save(); err != nil {
			r.drain()
			return r.cp, err
		}
		r.launch(ctx, batch)
		r.flush()
		if r.running == 0 {
			break
		}
		r.finish(<-r.done)
		r.collect()
	}
	err := r.end(ctx)
	r.flush()
	return r.cp, err
}

// pick takes ready steps while slots are free and records them as started.
func (r *runner) pick(ctx context.Context) []int {
	if r.fatal != nil || ctx.Err() != nil {
		return nil
	}
	var batch []int
	for r.running < r.opts.MaxParallel && r.ready.Len() > 0 {
		i := heap.Pop(r.ready).(int)
		batch = append(batch, i)
		r.running++
		r.cp.StartedSteps = append(r.cp.StartedSteps, r.p.Steps[i].Index)
		r.emit(Event{Kind: StepStarted, Step: &r.p.Steps[i]})
	}
	return batch
}

func (r *runner) launch(ctx context.Context, batch []int) {
	for _, i := range batch {
		go r.work(ctx, i, r.inputs(i))
	}
}

// collect takes the outcomes of other steps that ended meanwhile, so that a
// burst of completions costs one checkpoint.
func (r *runner) collect() {
	for {
		select {
		case d := <-r.done:
			r.finish(d)
		default:
			return
		}
	}
}

// drain waits for the steps still running, so no goroutine outlives Run.
func (r *runner) drain() {
	for r.running > 0 {
		r.finish(<-r.done)
	}
	r.flush()
}

func (r *runner) work(ctx context.Context, i int, vars map[string]any) {
	start := time.Now()
	st := &stepRun{vars: vars, calls: map[string]int{}}
	res, err := r.execStep(ctx, &r.p.Steps[i], st)
	r.done <- stepDone{pos: i, result: res, err: err, calls: st.calls, elapsed: time.Since(start)}
}

// inputs hands a worker its own copy of the variables its step refers to:
// the coordinator adds results while the worker reads. Values are never
// mutated, so a shallow copy is enough.
func (r *runner) inputs(i int) map[string]any {
	vars := make(map[string]any, len(r.refs[i]))
	for _, name := range r.refs[i] {
		if v, ok := r.cp.Variables[name]; ok {
			vars[name] = v
		}
	}
	return vars
}

// finish records a step's outcome and unblocks what waited for it.
func (r *runner) finish(d stepDone) {
	r.running--
	s := &r.p.Steps[d.pos]
	for tool, n := range d.calls {
		r.cp.Calls[tool] += n
	}
	if d.err == nil {
		if s.ResultVariable != "" {
			r.cp.Variables[s.ResultVariable] = d.result
		}
		r.cp.CompletedSteps = append(r.cp.CompletedSteps, s.Index)
		for _, c := range r.g.children[d.pos] {
			if r.waiting[c]--; r.waiting[c] == 0 {
				heap.Push(r.ready, c)
			}
		}
		r.emit(Event{Kind: StepDone, Step: s, Elapsed: d.elapsed})
		return
	}
	if r.ctxErr() != nil {
		// Cancelled mid-call: whether the tool acted is unknown, so the
		// step stays in flight for resume to judge.
		r.emit(Event{Kind: StepFailed, Step: s, Err: d.err, Elapsed: d.elapsed})
		return
	}
	r.cp.FailedSteps = append(r.cp.FailedSteps, FailedStep{Step: s.Index, Error: d.err.Error()})
	r.emit(Event{Kind: StepFailed, Step: s, Err: d.err, Elapsed: d.elapsed})
	if s.policy() == OnErrorContinue && !errors.Is(d.err, ErrBudget) {
		r.skipDependents(d.pos)
		return
	}
	if r.fatal == nil {
		r.fatal = fmt.Errorf("%s failed: %w", s.label(), d.err)
	}
}

// skipDependents marks every step downstream of pos as skipped.
func (r *runner) skipDependents(pos int) {
	stack := slices.Clone(r.g.children[pos])
	seen := map[int]bool{}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		r.cp.SkippedSteps = append(r.cp.SkippedSteps, r.p.Steps[i].Index)
		r.emit(Event{Kind: StepSkipped, Step: &r.p.Steps[i]})
		stack = append(stack, r.g.children[i]...)
	}
}

// end sets the final status and saves it.
func (r *runner) end(ctx context.Context) error {
	var err error
	switch {
	case r.fatal != nil:
		r.cp.Status, err = StatusFailed, r.fatal
	case ctx.Err() != nil && len(r.cp.CompletedSteps) < len(r.p.Steps):
		r.cp.Status = StatusStopped
		err = fmt.Errorf("run of plan %s stopped: %w; `weft plan resume %s` goes on", r.p.ID, ctx.Err(), r.p.ID)
	case len(r.cp.FailedSteps) > 0:
		r.cp.Status = StatusFailed
		err = fmt.Errorf("plan %s: %d step(s) failed and %d were skipped; fix them and `weft plan resume %s`",
			r.p.ID, len(r.cp.FailedSteps), len(r.cp.SkippedSteps), r.p.ID)
	default:
		r.cp.Status = StatusCompleted
	}
	if serr := r.save(); serr != nil && err == nil {
		err = serr
	}
	return err
}

func (r *runner) save() error {
	r.cp.UpdatedAt = r.opts.Now().UTC()
	if r.opts.Checkpoint == nil {
		return nil
	}
	if err := r.opts.Checkpoint(r.cp); err != nil {
		return fmt.Errorf("save the checkpoint of plan %s: %w; the run stopped", r.p.ID, err)
	}
	return nil
}

// emit queues an event, with the run's counters, for the next flush.
func (r *runner) emit(e Event) {
	if r.opts.Events == nil {
		return
	}
	e.Running = r.running
	e.Done = len(r.cp.CompletedSteps)
	e.Failed = len(r.cp.FailedSteps)
	e.Total = len(r.p.Steps)
	e.Since = r.opts.Now().Sub(r.begun)
	r.pending = append(r.pending, e)
}

// flush delivers the events gathered since the last save. Events follow
// the checkpoint they describe, so "done" means the result is on disk.
func (r *runner) flush() {
	if len(r.pending) == 0 {
		return
	}
	r.evMu.Lock()
	defer r.evMu.Unlock()
	for _, e := range r.pending {
		r.opts.Events(e)
	}
	r.pending = r.pending[:0]
}

// emitRetry reports a retry from a worker, which must not read the
// coordinator's counters.
func (r *runner) emitRetry(e Event) {
	if r.opts.Events == nil {
		return
	}
	r.evMu.Lock()
	defer r.evMu.Unlock()
	r.opts.Events(e)
}
