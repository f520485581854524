package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/policy"
)

// listing is what `weft mcp list` prints, live or from a health check.
type listing struct {
	Source string `json:"source"` // "live" or "health-check"
	gateway.Status
	// Withheld are tools whose definition changed since first seen.
	Withheld []policy.Change `json:"withheld_tools,omitempty"`
	// sources maps each configured server to the file defining it.
	sources map[string]string
	// Instances are the wefts running on this config (serve only).
	Instances []daemon.Instance `json:"instances,omitempty"`
}

func (a *app) mcpListCommand() *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show every server: live status from a running weft, else a health check",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if agent != "" {
				return a.agentListing(cmd.Context(), agent) // agents.go
			}
			l, err := a.list(cmd.Context())
			if err != nil {
				return err
			}
			l.Withheld = a.withheld()
			if a.jsonOut {
				return writeJSON(a.stdout, l)
			}
			a.printListing(l)
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "show only what this agent sees, under the names it knows")
	return cmd
}

func (a *app) list(ctx context.Context) (listing, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return listing{}, err
	}
	if l, ok := a.liveListing(ctx, cfg); ok {
		return withDisabled(l, cfg), nil
	}
	h := a.checkHub(cfg)
	defer h.Close(context.Background())
	h.Apply(ctx, cfg.Servers)
	return withDisabled(listing{Source: "health check of " + cfg.Path, Status: gateway.StatusOf(h)}, cfg), nil
}

func (a *app) printListing(l listing) {
	if len(l.Servers) == 0 {
		fmt.Fprintln(a.stdout, "No MCP servers configured. Add one: weft mcp add NAME TARGET [-- ARGS...]")
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTRANSPORT\tSTATUS\tBREAKER\tTOOLS\tRESOURCES\tPROMPTS\tIN FLIGHT\tTARGET\tSOURCE\tLAST ERROR")
	for _, s := range l.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\n", s.Name, s.Transport, s.Status, breakerCell(s), toolsCell(l, s),
			s.Resources, s.Prompts, s.InFlight, truncate(s.Target, 40), truncate(l.sources[s.Name], 40), truncate(s.LastError, 60))
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\n%d tools listed", len(l.Listed))
	if len(l.Hidden) > 0 {
		fmt.Fprintf(a.stdout, ", %d reachable only through weft__search_tools: %s", len(l.Hidden), truncate(strings.Join(l.Hidden, ", "), 200))
	}
	fmt.Fprintf(a.stdout, " (%s)\n", l.Source)
	for _, c := range l.Clashes {
		fmt.Fprintln(a.stdout, "clash: "+c)
	}
	for _, c := range l.Withheld {
		if c.TakesOverFrom != "" {
			fmt.Fprintf(a.stdout, "withheld: %s/%s would take the name over from %s; if it should, `weft mcp approve %s/%s`\n", c.Server, c.Tool, c.TakesOverFrom, c.Server, c.Tool)
			continue
		}
		fmt.Fprintf(a.stdout, "withheld: %s/%s changed its definition since first seen; review it, then `weft mcp approve %s`\n", c.Server, c.Tool, c.Server)
	}
	printNeedsLogin(a.stdout, l.Servers)
	for _, s := range l.Servers {
		if s.PerUser != nil {
			fmt.Fprintf(a.stdout, "per user: %s: %s\n", s.Name, perUserLine(s))
		}
	}
}

// perUserLine names a per-user server's users: live instances, and stored
// secrets (stdio) or logins (remote).
func perUserLine(s hub.ServerStatus) string {
	p := s.PerUser
	names := func(users []string) string {
		if len(users) == 0 {
			return "none"
		}
		return strings.Join(users, ", ")
	}
	line := "instances: " + names(p.Instances)
	if s.Transport == config.TransportStdio {
		return line + "; secrets stored: " + names(p.Secrets)
	}
	return line + "; logged in: " + names(p.Logins)
}

func (a *app) mcpGetCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one server: status and its tools, resources and prompts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				return writeJSON(a.stdout, d)
			}
			a.printDetail(d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&a.connectDisabled, "connect", false, "connect a disabled server too, to check it")
	return cmd
}

func (a *app) get(ctx context.Context, name string) (hub.ServerDetail, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return hub.ServerDetail{}, err
	}
	for _, inst := range daemon.LiveInstances(cfg.Path) {
		var d hub.ServerDetail
		if err := newAdminClient(cfg, inst).getJSON(ctx, gateway.ServersPath+url.PathEscape(name), &d); err == nil {
			return d, nil
		}
	}
	s, ok := cfg.Servers[name]
	if !ok {
		return hub.ServerDetail{}, fmt.Errorf("no server named %q in %s%s; see `weft mcp list`", name, cfg.Path, didYouMean(name, cfg.Names()))
	}
	if !s.IsEnabled() && !a.connectDisabled {
		return hub.ServerDetail{ServerStatus: disabledStatus(s)}, nil
	}
	h := a.checkHub(cfg)
	defer h.Close(context.Background())
	_, _ = h.Add(ctx, s)
	return h.Detail(name)
}

func (a *app) printDetail(d hub.ServerDetail) {
	fmt.Fprintf(a.stdout, "%s (%s %s): %s\n", d.Name, d.Transport, d.Target, d.Status)
	if d.ServerName != "" {
		fmt.Fprintf(a.stdout, "  server: %s %s, protocol %s\n", d.ServerName, d.ServerVersion, d.ProtocolVersion)
	}
	fmt.Fprintf(a.stdout, "  breaker: %s\n", breakerCell(d.ServerStatus))
	if d.PerUser != nil {
		fmt.Fprintf(a.stdout, "  per user: %s\n", perUserLine(d.ServerStatus))
	}
	if d.LastError != "" {
		fmt.Fprintf(a.stdout, "  last error: %s\n", d.LastError)
	}
	if !d.NextRetry.IsZero() {
		fmt.Fprintf(a.stdout, "  next reconnect: %s (attempt %d)\n", d.NextRetry.Format(time.RFC3339), d.Reconnects+1)
	}
	fmt.Fprintf(a.stdout, "  tools (%d):\n", len(d.ExposedTools))
	for _, t := range d.ExposedTools {
		note := ""
		if !t.Listed {
			note = "  (search only)"
		}
		fmt.Fprintf(a.stdout, "    %s%s\n", t.Name, note)
	}
	printNames(a.stdout, "resources", d.ResourceURIs)
	printNames(a.stdout, "resource templates", d.TemplateURIs)
	printNames(a.stdout, "prompts", d.PromptNames)
}

func printNames(w io.Writer, what string, names []string) {
	fmt.Fprintf(w, "  %s (%d):\n", what, len(names))
	for _, n := range names {
		fmt.Fprintf(w, "    %s\n", n)
	}
}

// liveListing asks the running wefts on cfg, lowest pid first, and says
// which one answered and how many others run.
func (a *app) liveListing(ctx context.Context, cfg *config.Config) (listing, bool) {
	insts := daemon.LiveInstances(cfg.Path)
	for i, inst := range insts {
		var st gateway.Status
		if err := newAdminClient(cfg, inst).getJSON(ctx, gateway.StatusPath, &st); err != nil {
			continue
		}
		src := fmt.Sprintf("live weft at %s, pid %d", inst.Addr, inst.PID)
		if others := liveOthers(insts, i); others != "" {
			src += "; also running on this config: " + others
		}
		return listing{Source: src, Status: st, Instances: insts}, true
	}
	return listing{}, false
}

// liveOthers names the instances other than insts[i].
func liveOthers(insts []daemon.Instance, i int) string {
	var out []string
	for j, in := range insts {
		if j != i {
			out = append(out, fmt.Sprintf("pid %d at %s", in.PID, in.Addr))
		}
	}
	return strings.Join(out, ", ")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// quietLogger keeps health checks from flooding the terminal with the
// upstreams' stderr; warnings still show.
func (a *app) quietLogger() *slog.Logger {
	if a.logLevel == "debug" {
		return a.logger
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

// breakerCell shows the breaker state, with the consecutive failures that
// count towards opening it when there are any.
func breakerCell(s hub.ServerStatus) string {
	if s.Breaker == "" {
		return "-"
	}
	if s.Failures > 0 {
		return fmt.Sprintf("%s (%d failures)", s.Breaker, s.Failures)
	}
	return string(s.Breaker)
}
