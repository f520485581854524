package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// requireKnownSubcommands makes every command that only groups others (weft,
// weft mcp, weft plan, …) fail on an unknown subcommand, with the closest
// known one, instead of printing help and exiting 0.
func requireKnownSubcommands(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		requireKnownSubcommands(c)
	}
	if !cmd.HasSubCommands() || cmd.Runnable() {
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
				names = append(names, c.Aliases...)
			}
		}
		return fmt.Errorf("unknown command %q for %q%s; see `%s --help`", args[0], cmd.CommandPath(),
			didYouMean(args[0], names), cmd.CommandPath())
	}
}

// didYouMean returns " (did you mean X?)" naming the candidate closest to
// name, or "" when none is close: a prefix either way, or an edit distance
// of at most a third of the name's length (at least 1, at most 3).
func didYouMean(name string, candidates []string) string {
	best, bestDist := "", 0
	limit := min(max(len(name)/3, 1), 3)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if len(name) >= 2 && (strings.HasPrefix(c, name) || strings.HasPrefix(name, c)) {
			d = min(d, 1)
		}
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	if best == "" || best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// defaultLogLevel is info for the commands that keep running (serve,
// mcp-server) or report as they go (run, chat, delegate), and warn for
// one-shot commands, whose output is their answer.
func defaultLogLevel(cmd *cobra.Command) string {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "serve", "mcp-server", "run", "chat", "delegate":
			if c.Parent() != nil && c.Parent().Parent() == nil {
				return "info"
			}
		}
	}
	return "warn"
}
