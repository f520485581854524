package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/weft-dev/weft/internal/clients"
	"github.com/weft-dev/weft/internal/config"
)

// importSource is the file `weft mcp import` reads: the one given, else
// Claude Desktop's config on this OS. already is set for a .mcp.json weft
// reads anyway, whose servers are served as they are.
func importSource(cfg *config.Config, args []string) (file string, already bool, err error) {
	if len(args) == 0 {
		file := clients.ClaudeDesktopConfig(clientEnv())
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return "", false, fmt.Errorf("no Claude Desktop config at %s; give the file to import: weft mcp import FILE", file)
		}
		return file, false, nil
	}
	for _, read := range cfg.MCPJSONFiles() {
		if sameFile(args[0], read) {
			return args[0], true, nil
		}
	}
	return args[0], false, nil
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return false
	}
	return os.SameFile(sa, sb)
}

// printImported says what `weft mcp import` did, without a dangling list
// when nothing was added.
func (a *app) printImported(path string, added, skipped []string) {
	switch len(added) {
	case 0:
		fmt.Fprintf(a.stdout, "Imported no servers into %s.\n", path)
	case 1:
		fmt.Fprintf(a.stdout, "Imported 1 server into %s: %s\n", path, added[0])
	default:
		fmt.Fprintf(a.stdout, "Imported %d servers into %s: %s\n", len(added), path, strings.Join(added, ", "))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(a.stdout, "Skipped (already configured): %s\n", strings.Join(skipped, ", "))
	}
}
