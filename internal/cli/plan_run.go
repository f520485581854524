package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/toolset"
	"golang.org/x/term"
)

// runFlags are the options of `weft plan run` and `resume`.
type runFlags struct {
	dryRun        bool
	vars          []string
	maxParallel   int
	yes           bool
	maxCalls      int
	maxPerTool    int
	toolLimits    []string // --tool-limit name=N
	rerunInflight bool
	json          bool // print every variable as JSON at the end
}

func (r *runFlags) limits() (plan.Limits, error) {
	l := plan.Limits{MaxCalls: r.maxCalls, MaxCallsPerTool: r.maxPerTool, PerTool: map[string]int{}}
	for _, kv := range r.toolLimits {
		name, n, ok := strings.Cut(kv, "=")
		limit, err := strconv.Atoi(n)
		if !ok || name == "" || err != nil || limit < 0 {
			return l, fmt.Errorf("--tool-limit %q: write it as tool=N, N a whole number", kv)
		}
		l.PerTool[name] = limit
	}
	return l, nil
}

func (a *app) planRunCommand(f *planFlags) *cobra.Command {
	rf := runFlags{}
	var from string
	var maps []string
	cmd := &cobra.Command{
		Use:   "run ID | --from FILE",
		Short: "Run a saved plan (or --dry-run it), with live progress and a checkpoint after every step",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.planToRun(cmd, f, args, from, maps)
			if err != nil {
				return err
			}
			if rf.dryRun {
				return a.dryRun(p, rf)
			}
			return a.confirmAndRun(cmd, f, p, rf)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&rf.dryRun, "dry-run", false, "print each step's tool and resolved arguments; call nothing")
	fl.StringArrayVar(&rf.vars, "var", nil, "set a plan variable: name=value (repeatable; JSON values keep their type)")
	fl.IntVar(&rf.maxParallel, "max-parallel", plan.DefaultMaxParallel, "most steps running at once")
	fl.BoolVar(&rf.yes, "yes", false, "run without asking")
	fl.StringVar(&from, "from", "", "import this plan file (weft's or mcp-cli's form) and run it")
	fl.StringArrayVar(&maps, "map", nil, "with --from: SERVER=PREFIX, as for `weft plan import` (repeatable)")
	addLimitFlags(cmd, &rf)
	return cmd
}

func addLimitFlags(cmd *cobra.Command, rf *runFlags) {
	cmd.Flags().IntVar(&rf.maxCalls, "max-calls", 0, "stop after this many tool calls in all (0: no limit)")
	cmd.Flags().IntVar(&rf.maxPerTool, "max-calls-per-tool", 0, "stop after this many calls of any one tool (0: no limit)")
	cmd.Flags().StringArrayVar(&rf.toolLimits, "tool-limit", nil, "limit one tool's calls: name=N (repeatable; overrides --max-calls-per-tool)")
	cmd.Flags().BoolVar(&rf.json, "json", false, "end with every variable (inputs and step results) as one JSON object")
}

func (a *app) planResumeCommand(f *planFlags) *cobra.Command {
	rf := runFlags{}
	cmd := &cobra.Command{
		Use:   "resume ID",
		Short: "Go on with a plan's last run: completed steps are kept, the rest run",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, p, err := f.load(args[0])
			if err != nil {
				return err
			}
			cp, ok, err := s.LoadCheckpoint(p.ID)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("plan %s has not run yet; start it with `weft plan run %s`", p.ID, p.ID)
			}
			if cp.Status == plan.StatusCompleted {
				fmt.Fprintf(a.stdout, "Plan %s already completed; `weft plan run %s` runs it again.\n", p.ID, p.ID)
				return nil
			}
			return a.execute(cmd.Context(), s, p, rf, cp)
		},
	}
	cmd.Flags().IntVar(&rf.maxParallel, "max-parallel", plan.DefaultMaxParallel, "most steps running at once")
	cmd.Flags().BoolVar(&rf.rerunInflight, "rerun-inflight", false, "re-run steps that were running when the run stopped, even if their tools are not idempotent")
	addLimitFlags(cmd, &rf)
	return cmd
}

func (a *app) dryRun(p *plan.Plan, rf runFlags) error {
	vars, err := parseVars(p, rf.vars)
	if err != nil {
		return err
	}
	d, err := plan.Dry(p, vars)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Plan: %s (dry run)\n\n", p.Title)
	d.Print(a.stdout)
	return nil
}

// confirmAndRun shows the plan and, when stdin is a terminal and --yes is
// not given, asks `Execute? [y/n/edit]` before running it.
func (a *app) confirmAndRun(cmd *cobra.Command, f *planFlags, p *plan.Plan, rf runFlags) error {
	s, err := f.store()
	if err != nil {
		return err
	}
	vars, err := parseVars(p, rf.vars)
	if err != nil {
		return err
	}
	plan.Render(a.stdout, p.WithVars(vars))
	fmt.Fprintln(a.stdout)
	if !rf.yes && stdinIsTerminal() {
		q, err := a.confirm(cmd.Context(), s, p)
		if err != nil || q == nil {
			return err
		}
		p = q
	}
	return a.execute(cmd.Context(), s, p, rf, nil)
}

// stdinIsTerminal tells a person at a terminal (who can answer) from a
// pipe, file or /dev/null (which cannot).
func stdinIsTerminal() bool { return term.IsTerminal(int(os.Stdin.Fd())) }

// confirm asks until the answer is y or n; edit opens $EDITOR on the plan
// and shows it again. It returns the plan to run, or nil for no.
func (a *app) confirm(ctx context.Context, s *plan.Store, p *plan.Plan) (*plan.Plan, error) {
	in := bufio.NewReader(os.Stdin)
	for {
		fmt.Fprint(a.stdout, "Execute? [y/n/edit] ")
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, errors.New("no answer on stdin; pass --yes to run without asking")
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return p, nil
		case "n", "no":
			fmt.Fprintf(a.stdout, "Not run. `weft plan run %s` runs it later.\n", p.ID)
			return nil, nil
		case "e", "edit":
			q, err := a.editPlan(ctx, s, p)
			if err != nil {
				fmt.Fprintln(a.stdout, "weft: "+oneLine(err))
				continue
			}
			p = q
			plan.Render(a.stdout, p)
		}
	}
}

// editPlan runs $EDITOR (directly, not through a shell) on the stored plan
// and reloads it.
func (a *app) editPlan(ctx context.Context, s *plan.Store, p *plan.Plan) (*plan.Plan, error) {
	editor := strings.Fields(os.Getenv("EDITOR"))
	if len(editor) == 0 {
		return nil, errors.New("$EDITOR is not set; set it or edit " + filepath.Join(s.Dir, p.ID+".json") + " yourself")
	}
	cmd := exec.CommandContext(ctx, editor[0], append(editor[1:], filepath.Join(s.Dir, p.ID+".json"))...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, a.stdout, a.stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("editor: %w", err)
	}
	q, err := s.Load(p.ID)
	if err != nil {
		return nil, err
	}
	return q, plan.Validate(q, nil)
}

// validateLive checks a plan against the catalog of the configured servers.
func (a *app) validateLive(ctx context.Context, p *plan.Plan) error {
	return a.withTools(ctx, func(c toolset.Caller) error { return plan.Validate(p, c.Tools()) })
}

// withTools starts the hub as `weft serve` does and hands fn the catalog.
func (a *app) withTools(ctx context.Context, fn func(toolset.Caller) error) error {
	d, err := a.startSettled(ctx)
	if err != nil {
		return err
	}
	defer stopDaemon(d)
	tools, err := d.AgentTools(a.asAgent)
	if err != nil {
		return err
	}
	return fn(daemon.PlanTools{HubTools: tools})
}

// execute runs (or, with cp, resumes) a plan against the live catalog,
// printing progress and saving a checkpoint after every step.
func (a *app) execute(ctx context.Context, s *plan.Store, p *plan.Plan, rf runFlags, cp *plan.Checkpoint) error {
	vars, err := parseVars(p, rf.vars)
	if err != nil {
		return err
	}
	limits, err := rf.limits()
	if err != nil {
		return err
	}
	unlock, err := s.Lock(p.ID)
	if err != nil {
		return err
	}
	defer unlock()
	if cp == nil {
		a.noteUnfinished(s, p.ID)
	}
	return a.withTools(ctx, func(c toolset.Caller) error {
		if err := plan.Validate(p, c.Tools()); err != nil {
			return err
		}
		pr := newProgress(a.stdout)
		final, err := plan.Run(ctx, c, p, plan.Options{
			MaxParallel: rf.maxParallel, Vars: vars, Budget: plan.NewBudget(limits),
			Checkpoint: s.Checkpointer(), Resume: cp, RerunInflight: rf.rerunInflight, Events: pr.event,
		})
		if final != nil {
			pr.summary(p, final)
			a.printResults(p, final, rf.json)
		}
		return err
	})
}

// noteUnfinished says when a fresh run replaces the state of one that did
// not finish, which `weft plan resume` could have taken up.
func (a *app) noteUnfinished(s *plan.Store, id string) {
	prev, ok, err := s.LoadCheckpoint(id)
	if err != nil || !ok || prev.Status == plan.StatusCompleted {
		return
	}
	fmt.Fprintf(a.stdout, "The last run of %s ended %s with %d of its steps done; this run starts afresh (`weft plan resume %s` would have gone on).\n",
		id, prev.Status, len(prev.CompletedSteps), id)
}
