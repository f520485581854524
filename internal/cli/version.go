package cli

import (
	"fmt"
	goruntime "runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Commit is the commit weft was built from, set at build time with -ldflags
// (make build, make dist); when empty the Go toolchain's VCS stamp is used.
var Commit = ""

// versionLine is what `weft version` and `weft --version` print: weft's
// version, the commit it was built from (from the Go toolchain's VCS stamp,
// "+dirty" when the tree had changes) and the Go version.
func versionLine() string {
	commit := Commit
	if commit == "" {
		commit = vcsCommit()
	}
	return fmt.Sprintf("weft version %s (commit %s, %s, %s/%s)", Version, commit, goruntime.Version(), goruntime.GOOS, goruntime.GOARCH)
}

// vcsCommit reads the commit the Go toolchain stamped into the binary.
func vcsCommit() string {
	commit := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			commit = rev[:min(len(rev), 12)]
			if dirty {
				commit += "+dirty"
			}
		}
	}
	return commit
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print weft's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(a.stdout, versionLine())
			return nil
		},
	}
}
