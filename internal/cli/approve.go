package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/policy"
)

func (a *app) mcpApproveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "approve [SERVER[/TOOL]]",
		Short: "Accept changed tool definitions, or a server taking over a tool name, withheld until approved; without a name, list them",
		Example: "  weft mcp approve            # list tools withheld because their definition changed\n" +
			"  weft mcp approve github     # accept every changed tool of server github\n" +
			"  weft mcp approve github/create_issue",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := config.ResolvePath(a.configFlag)
			pins, err := policy.OpenPins(policy.PinsPath(path), config.PinningStrict, a.logger)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return a.printPending(pins.Pending())
			}
			server, tool, _ := strings.Cut(args[0], "/")
			done, err := pins.Approve(server, tool)
			if err != nil {
				return err
			}
			for _, c := range done {
				if c.TakesOverFrom != "" {
					fmt.Fprintf(a.stdout, "Approved %s serving %s (instead of %s)\n", c.Server, c.Tool, c.TakesOverFrom)
					continue
				}
				fmt.Fprintf(a.stdout, "Approved the new definition of %s/%s\n", c.Server, c.Tool)
			}
			return nil
		},
	}
}

func (a *app) printPending(changes []policy.Change) error {
	if a.jsonOut {
		return writeJSON(a.stdout, struct {
			Pending []policy.Change `json:"pending"`
		}{append([]policy.Change{}, changes...)})
	}
	if len(changes) == 0 {
		fmt.Fprintln(a.stdout, "No changed tool definitions wait for approval.")
		return nil
	}
	fmt.Fprintln(a.stdout, "Tools withheld until approved (definition changed since first seen, or name exposed by another server):")
	for _, c := range changes {
		if c.TakesOverFrom != "" {
			fmt.Fprintf(a.stdout, "  %s/%s (the name is exposed by %s)\n", c.Server, c.Tool, c.TakesOverFrom)
			continue
		}
		fmt.Fprintf(a.stdout, "  %s/%s\n", c.Server, c.Tool)
	}
	return nil
}

// withheld lists the tools waiting for approval, from the pins file beside
// the config (empty when there is none or it cannot be read).
func (a *app) withheld() []policy.Change {
	pins, err := policy.OpenPins(policy.PinsPath(config.ResolvePath(a.configFlag)), config.PinningStrict, a.logger)
	if err != nil {
		return nil
	}
	return pins.Pending()
}
