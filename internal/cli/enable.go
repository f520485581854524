package cli

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
)

// statusDisabled is how mcp list and mcp get show a server whose entry says
// enabled = false: configured, never connected.
const statusDisabled hub.Status = "disabled"

func (a *app) mcpEnableCommands() []*cobra.Command {
	set := func(use, short string, enabled bool) *cobra.Command {
		return &cobra.Command{
			Use:   use + " NAME",
			Short: short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return a.setEnabled(args[0], enabled)
			},
		}
	}
	return []*cobra.Command{
		set("enable", "Set enabled = true on a server in weft.toml (a running weft connects it)", true),
		set("disable", "Set enabled = false on a server in weft.toml (a running weft drains it; the entry stays)", false),
	}
}

func (a *app) setEnabled(name string, enabled bool) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	s, ok := cfg.Servers[name]
	switch {
	case !ok:
		return fmt.Errorf("no server named %q in %s%s; see `weft mcp list`", name, cfg.Path, didYouMean(name, cfg.Names()))
	case s.Source != cfg.Path:
		return fmt.Errorf("server %q comes from %s; set \"disabled\": %t in its entry there", name, s.Source, !enabled)
	}
	if err := config.SetServerEnabled(cfg.Path, name, enabled); err != nil {
		return err
	}
	word := "Enabled"
	if !enabled {
		word = "Disabled"
	}
	fmt.Fprintf(a.stdout, "%s MCP server '%s' in %s\n", word, name, cfg.Path)
	return nil
}

// withDisabled adds the configured but disabled servers to a listing, which
// only holds the servers a hub runs, and notes where each server is defined.
func withDisabled(l listing, cfg *config.Config) listing {
	l.sources = map[string]string{}
	for _, name := range cfg.Names() {
		s := cfg.Servers[name]
		l.sources[name] = sourceCell(s.Source, cfg.Path)
		if !s.IsEnabled() {
			l.Servers = append(l.Servers, disabledStatus(s))
		}
	}
	return l
}

// sourceCell names the file a server comes from: weft.toml's base name, or
// the path of the .mcp.json.
func sourceCell(source, path string) string {
	if source == path {
		return filepath.Base(path)
	}
	return source
}

func disabledStatus(s *config.Server) hub.ServerStatus {
	return hub.ServerStatus{Name: s.Name, Transport: s.Transport(), Target: s.Target, Status: statusDisabled,
		LastError: "enabled = false in " + filepath.Base(s.Source)}
}

// toolsCell is the TOOLS column of mcp list: exposed/total, where exposed is
// what allowed_tools, denied_tools and pinning leave; "-" for a disabled
// server, and the total alone from a weft too old to report exposure.
func toolsCell(l listing, s hub.ServerStatus) string {
	switch {
	case s.Status == statusDisabled:
		return "-"
	case l.Exposed == nil:
		return strconv.Itoa(s.Tools)
	}
	return fmt.Sprintf("%d/%d", l.Exposed[s.Name], s.Tools)
}
