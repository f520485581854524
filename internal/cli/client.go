package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/clients"
)

// clientEnv is where the client config files live on this machine.
func clientEnv() clients.Env {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	return clients.Env{Home: home, Project: wd, GOOS: goruntime.GOOS, AppData: os.Getenv("APPDATA")}
}

func (a *app) clientCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Set up MCP clients (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex) to use weft",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(a.clientAddCommand(), a.clientListCommand())
	return cmd
}

func (a *app) clientAddCommand() *cobra.Command {
	var scope, url, name, agent string
	var printOnly bool
	cmd := &cobra.Command{
		Use:   "add " + strings.Join(clients.Names(), "|"),
		Short: "Write this weft into a client's MCP config, keeping the rest of the file (the old one is kept as .bak)",
		Long: "Write this weft into a client's MCP config. By default the client starts `weft mcp-server` (this executable,\n" +
			"by its absolute path); with --http it connects to a running `weft serve` instead. The rest of the file is kept,\n" +
			"and the old file is kept beside it as FILE.bak. With --print nothing is written.",
		Args:      cobra.ExactArgs(1),
		ValidArgs: clients.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := clients.Lookup(args[0])
			if err != nil {
				return err
			}
			if scope, err = c.Scope(scope); err != nil {
				return err
			}
			if agent != "" {
				if err := a.checkAgent(agent); err != nil {
					return err
				}
				if !cmd.Flags().Changed("name") {
					name = agent
				}
			}
			e, err := a.clientEntry(name, url, agent)
			if err != nil {
				return err
			}
			if printOnly {
				return a.printClientEntry(c, scope, e)
			}
			return a.clientAdd(cmd.Context(), c, scope, e)
		},
	}
	cmd.Flags().StringVar(&scope, "scope", "", "user (every project) or project (a file in this directory); default: the client's usual one")
	cmd.Flags().StringVar(&url, "http", "", "connect the client to weft's HTTP face at this URL (e.g. http://127.0.0.1:7777/mcp) instead of starting weft")
	cmd.Flags().StringVar(&name, "name", "weft", "name of the entry in the client's config")
	cmd.Flags().StringVar(&agent, "agent", "", "connect the client as this agent (weft mcp-server --agent NAME; the entry is named after it); with --http, give the agent's URL (…/agents/NAME/mcp)")
	cmd.Flags().BoolVar(&printOnly, "print", false, "print the entry and the file it belongs in; write nothing")
	return cmd
}

// clientEntry is the entry for this weft: its own executable running
// mcp-server (with --config when one was chosen explicitly, and --agent
// when an agent is), or url.
func (a *app) clientEntry(name, url, agent string) (clients.Entry, error) {
	if url != "" {
		return clients.Entry{Name: name, URL: url}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return clients.Entry{}, fmt.Errorf("cannot find weft's own executable: %w; give --http URL instead", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	args := []string{"mcp-server"}
	if cfg := a.configFlag; cfg != "" || os.Getenv("WEFT_CONFIG") != "" {
		if cfg == "" {
			cfg = os.Getenv("WEFT_CONFIG")
		}
		abs, err := filepath.Abs(cfg)
		if err != nil {
			return clients.Entry{}, fmt.Errorf("config %s: %w", cfg, err)
		}
		args = append(args, "--config", abs)
	}
	if agent != "" {
		args = append(args, "--agent", agent)
	}
	return clients.Entry{Name: name, Command: exe, Args: args}, nil
}

func (a *app) printClientEntry(c clients.Client, scope string, e clients.Entry) error {
	text, err := c.Snippet(e)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "# %s (%s scope): %s\n%s", c.Title, scope, c.Path(scope, clientEnv()), text)
	return nil
}

func (a *app) clientAdd(ctx context.Context, c clients.Client, scope string, e clients.Entry) error {
	if c.Name == "claude-code" {
		if claude, err := exec.LookPath("claude"); err == nil {
			return a.claudeMCPAdd(ctx, claude, scope, e)
		}
	}
	path := c.Path(scope, clientEnv())
	_, statErr := os.Stat(path)
	if err := c.Write(path, e); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Added %s to %s (%s scope): %s\n", e.Name, c.Title, scope, path)
	if statErr == nil {
		fmt.Fprintf(a.stdout, "The previous file is kept as %s.bak.\n", path)
	}
	if c.Name == "claude-desktop" || c.Name == "windsurf" {
		fmt.Fprintf(a.stdout, "Restart %s to load it.\n", c.Title)
	}
	return nil
}

// claudeMCPAdd lets Claude Code's own CLI write its config, replacing an
// entry of the same name.
func (a *app) claudeMCPAdd(ctx context.Context, claude, scope string, e clients.Entry) error {
	rm := exec.CommandContext(ctx, claude, "mcp", "remove", "-s", scope, e.Name)
	_ = rm.Run() // there may be nothing to remove
	args := []string{"mcp", "add", "-s", scope}
	if e.URL != "" {
		args = append(args, "--transport", "http", e.Name, e.URL)
	} else {
		args = append(append(args, e.Name, "--"), append([]string{e.Command}, e.Args...)...)
	}
	out, err := exec.CommandContext(ctx, claude, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("claude %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	fmt.Fprintf(a.stdout, "Added %s to Claude Code (%s scope) with `claude mcp add`.\n", e.Name, scope)
	return nil
}

func (a *app) clientListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Show which MCP clients on this machine have weft in their config",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CLIENT\tSCOPE\tWEFT\tFILE")
			for _, st := range clients.List(clientEnv()) {
				state := "no"
				switch {
				case st.Missing:
					state = "no (no file)"
				case st.Err != nil:
					state = "unreadable: " + oneLine(st.Err)
				case len(st.Servers) > 0:
					state = "yes (" + strings.Join(st.Servers, ", ") + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Client.Name, st.Scope, state, st.Path)
			}
			return tw.Flush()
		},
	}
}
