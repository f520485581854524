package cli

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/plan"
)

// planFlags are what every `weft plan` subcommand shares.
type planFlags struct {
	dir string // --plans-dir
}

func (a *app) planCommand() *cobra.Command {
	f := &planFlags{}
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Create, inspect, dry-run, run and resume plans: saved DAGs of tool calls",
	}
	cmd.PersistentFlags().StringVar(&a.asAgent, "agent", "", "work as this agent: plans are checked against and run with its tools only")
	cmd.PersistentFlags().StringVar(&f.dir, "plans-dir", "", "where plans live (default $WEFT_PLANS_DIR, else ~/.weft/plans)")
	cmd.AddCommand(a.planCreateCommand(f), a.planImportCommand(f), a.planValidateCommand(),
		a.planListCommand(f), a.planShowCommand(f), a.planRunCommand(f), a.planResumeCommand(f), a.planDeleteCommand(f))
	return cmd
}

func (f *planFlags) store() (*plan.Store, error) {
	dir := f.dir
	if dir == "" {
		d, err := plan.DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return &plan.Store{Dir: dir}, nil
}

// load opens the store and reads the plan with the given id.
func (f *planFlags) load(id string) (*plan.Store, *plan.Plan, error) {
	s, err := f.store()
	if err != nil {
		return nil, nil, err
	}
	p, err := s.Load(id)
	return s, p, err
}

// readPlanFile parses a plan file and gives it an id and creation time.
func readPlanFile(path string) (*plan.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	p, err := plan.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p.FillDefaults(time.Now())
	return p, nil
}

func (a *app) planValidateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE",
		Short: "Check a plan file against the format and the live tool catalog, without saving it",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := readPlanFile(args[0])
			if err != nil {
				return err
			}
			if err := a.validateLive(cmd.Context(), p); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: valid (%d steps, %d tool calls)\n", args[0], len(p.Steps), p.Calls())
			return nil
		},
	}
}

func (a *app) planCreateCommand(f *planFlags) *cobra.Command {
	var from string
	var yes bool
	cmd := &cobra.Command{
		Use:   "create DESCRIPTION | --from FILE",
		Short: "Have the LLM write a plan for DESCRIPTION (or read it --from a file), show it, and offer to run it",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			description := ""
			if len(args) == 1 {
				description = args[0]
			}
			if from == "" {
				return a.createFromDescription(cmd, f, description, yes)
			}
			p, err := a.importPlan(cmd, f, from, description, false)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Saved plan %s.\n", p.ID)
			return a.confirmAndRun(cmd, f, p, runFlags{yes: yes})
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "plan JSON file to create the plan from")
	cmd.Flags().BoolVar(&yes, "yes", false, "run without asking")
	return cmd
}

func (a *app) planListCommand(f *planFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List saved plans with their last run's status",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := f.store()
			if err != nil {
				return err
			}
			plans, bad, err := s.List()
			if err != nil {
				return err
			}
			for name, err := range bad {
				a.logger.Warn("plan file skipped", "file", name, "err", err)
			}
			if len(plans) == 0 {
				fmt.Fprintf(a.stdout, "No plans in %s. Create one with `weft plan create --from plan.json`.\n", s.Dir)
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTITLE\tSTEPS\tLAST RUN")
			for _, p := range plans {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", p.ID, p.Title, len(p.Steps), daemon.LastRun(s, p.ID))
			}
			return tw.Flush()
		},
	}
}

func (a *app) planShowCommand(f *planFlags) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Draw a plan: its steps, tools, dependencies and variables",
		Example: "  weft plan show report\n  weft plan show report --format dot | dot -Tsvg > report.svg\n  weft plan show report --format mermaid\n  weft plan show report --format svg > report.svg",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, p, err := f.load(args[0])
			if err != nil {
				return err
			}
			if format != "" && format != "text" {
				return plan.WritePicture(a.stdout, p, format)
			}
			plan.Render(a.stdout, p)
			fmt.Fprintf(a.stdout, "Last run: %s\n", daemon.LastRun(s, p.ID))
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "text, dot (Graphviz), mermaid or svg (drawn by weft, no tools needed)")
	return cmd
}

func (a *app) planDeleteCommand(f *planFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a plan and its run state",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.store()
			if err != nil {
				return err
			}
			if err := s.Delete(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Deleted plan %s.\n", args[0])
			return nil
		},
	}
}

// parseVars reads --var k=v flags, typed by the plan's defaults.
func parseVars(p *plan.Plan, kvs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--var %q: write it as name=value", kv)
		}
		out[k] = plan.ParseVar(p, k, v)
	}
	return out, nil
}
