package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/toolset"
)

// importFlags are the flags of `weft plan import`.
type importFlags struct {
	force   bool
	fromMCP bool
	maps    []string
}

func (a *app) planImportCommand(f *planFlags) *cobra.Command {
	fl := &importFlags{}
	cmd := &cobra.Command{
		Use:   "import FILE | --from-mcp-cli [DIR]",
		Short: "Validate a plan file (or every plan mcp-cli saved) and save it to the store",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			maps, err := plan.ParseToolMaps(fl.maps)
			if err != nil {
				return err
			}
			if fl.fromMCP {
				dir := ""
				if len(args) == 1 {
					dir = args[0]
				}
				return a.importMCPCLI(cmd, f, dir, maps, fl.force)
			}
			if len(args) == 0 {
				return errors.New("name the plan file to import, or pass --from-mcp-cli to import mcp-cli's plans")
			}
			p, err := readPlanFile(args[0])
			if err != nil {
				return err
			}
			p.MapTools(maps)
			if err := a.saveImported(cmd, f, p, fl.force); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Saved plan %s (%d steps). Show it with `weft plan show %s`.\n", p.ID, len(p.Steps), p.ID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&fl.force, "force", false, "replace a stored plan with the same id")
	cmd.Flags().BoolVar(&fl.fromMCP, "from-mcp-cli", false, "import every plan of mcp-cli's plans directory (DIR, default ~/.mcp-cli/plans)")
	cmd.Flags().StringArrayVar(&fl.maps, "map", nil, "SERVER=PREFIX: a tool name without weft's SERVER__ namespace that starts with PREFIX "+
		"is SERVER's tool, the prefix removed (an empty PREFIX maps every such name); repeatable")
	return cmd
}

// importPlan validates a plan file against the live catalog and saves it;
// description fills in a plan that has none.
func (a *app) importPlan(cmd *cobra.Command, f *planFlags, path, description string, force bool) (*plan.Plan, error) {
	p, err := readPlanFile(path)
	if err != nil {
		return nil, err
	}
	if p.Description == "" {
		p.Description = description
	}
	return p, a.saveImported(cmd, f, p, force)
}

// saveImported validates a plan against the live catalog and saves it,
// refusing to replace a stored plan unless force.
func (a *app) saveImported(cmd *cobra.Command, f *planFlags, p *plan.Plan, force bool) error {
	s, err := f.store()
	if err != nil {
		return err
	}
	if err := refuseExisting(s, p, force); err != nil {
		return err // before starting the upstreams for nothing
	}
	return a.withTools(cmd.Context(), func(c toolset.Caller) error { return saveChecked(s, p, c.Tools(), force) })
}

// importMCPCLI imports every plan file of mcp-cli's plans directory,
// checking them all against one start of the upstreams. A plan that cannot
// be imported is reported and the others are still imported.
func (a *app) importMCPCLI(cmd *cobra.Command, f *planFlags, dir string, maps []plan.ToolMap, force bool) error {
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("find mcp-cli's plans directory: %w; name it: weft plan import --from-mcp-cli DIR", err)
		}
		dir = filepath.Join(home, ".mcp-cli", "plans")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no plan files (*.json) in %s; name mcp-cli's plans directory: weft plan import --from-mcp-cli DIR", dir)
	}
	sort.Strings(files)
	s, err := f.store()
	if err != nil {
		return err
	}
	var failed []string
	report := func(file string, err error) {
		failed = append(failed, filepath.Base(file))
		fmt.Fprintf(a.stderr, "Skipped %s: %v\n", file, err)
	}
	err = a.withTools(cmd.Context(), func(c toolset.Caller) error {
		for _, file := range files {
			p, err := readPlanFile(file)
			if err == nil {
				p.MapTools(maps)
				err = saveChecked(s, p, c.Tools(), force)
			}
			if err != nil {
				report(file, err)
				continue
			}
			fmt.Fprintf(a.stdout, "Imported plan %s %q (%d steps).\n", p.ID, p.Title, len(p.Steps))
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Imported %d of %d plans from %s.\n", len(files)-len(failed), len(files), dir)
	if len(failed) > 0 {
		return fmt.Errorf("%d plan(s) not imported (%s): fix what is said above, or map their tools with --map SERVER=PREFIX, then import again",
			len(failed), strings.Join(failed, ", "))
	}
	return nil
}

// saveChecked validates a plan against a catalog snapshot and saves it.
func saveChecked(s *plan.Store, p *plan.Plan, tools []toolset.Tool, force bool) error {
	if err := refuseExisting(s, p, force); err != nil {
		return err
	}
	if err := plan.Validate(p, tools); err != nil {
		return err
	}
	return s.Save(p)
}

// refuseExisting refuses a plan whose id the store already holds, unless
// force.
func refuseExisting(s *plan.Store, p *plan.Plan, force bool) error {
	if _, err := s.Load(p.ID); err == nil && !force {
		return fmt.Errorf("plan %s already exists; delete it, pass --force, or change the id", p.ID)
	}
	return nil
}

// planToRun is the plan `weft plan run` runs: the stored plan named by args,
// or the file --from names, saved first. A stored plan with the file's id is
// reused when it is the same plan, and refused when it differs.
func (a *app) planToRun(cmd *cobra.Command, f *planFlags, args []string, from string, rules []string) (*plan.Plan, error) {
	switch {
	case from == "" && len(args) == 1:
		_, p, err := f.load(args[0])
		return p, err
	case from == "":
		return nil, errors.New("name the plan to run: weft plan run ID, or weft plan run --from FILE")
	case len(args) == 1:
		return nil, errors.New("name a stored plan (weft plan run ID) or a plan file (weft plan run --from FILE), not both")
	}
	maps, err := plan.ParseToolMaps(rules)
	if err != nil {
		return nil, err
	}
	p, err := readPlanFile(from)
	if err != nil {
		return nil, err
	}
	p.MapTools(maps)
	s, err := f.store()
	if err != nil {
		return nil, err
	}
	if old, err := s.Load(p.ID); err == nil {
		if old.Hash() != p.Hash() {
			return nil, fmt.Errorf("plan %s is already stored and differs from %s; `weft plan import --force %s` replaces it", p.ID, from, from)
		}
		return old, nil
	}
	return p, a.saveImported(cmd, f, p, false)
}
