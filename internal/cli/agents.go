package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// agentsCommand is `weft agents`: the configured agents and what each sees,
// live from a running weft, else from a health check.
func (a *app) agentsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "agents", Short: "Show the agents: named views of weft with their own servers, tools and limits"}
	cmd.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "machine-readable JSON output")
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the agents: servers, tools exposed of total, live sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.agentsList(cmd.Context())
		},
	}, &cobra.Command{
		Use:   "show NAME",
		Short: "Show one agent: its config, servers and the tools it sees",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.agentsShow(cmd.Context(), args[0])
		},
	})
	return cmd
}

// agentsReport is what `weft agents list` prints.
type agentsReport struct {
	Source string                `json:"source"`
	Agents []gateway.AgentStatus `json:"agents"`
}

func (a *app) agentsList(ctx context.Context) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	rep := agentsReport{Source: "live", Agents: []gateway.AgentStatus{}}
	ok, err := a.onLive(cfg, func(c adminClient) error { return c.getJSON(ctx, gateway.AgentsAdminPath, &rep.Agents) })
	if err != nil {
		return err
	}
	if !ok {
		rep.Source = "health check of " + cfg.Path
		a.withCheckHub(ctx, cfg, func(h *hub.Hub) {
			for _, name := range cfg.AgentNames() {
				rep.Agents = append(rep.Agents, gateway.AgentStatusOf(h, agentView(cfg, name), 0))
			}
		})
	}
	if a.jsonOut {
		return writeJSON(a.stdout, rep)
	}
	if len(rep.Agents) == 0 {
		fmt.Fprintf(a.stdout, "No agents configured. Add an [agents.NAME] table to %s or a file %s.\n", cfg.Path, cfg.AgentFile("NAME"))
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSERVERS\tTOOLS\tSESSIONS\tSOURCE")
	for _, s := range rep.Agents {
		src := ""
		if spec := cfg.Agents[s.Name]; spec != nil {
			src = spec.Source
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%s\n", s.Name, strings.Join(s.Servers, ","), s.ToolsExposed, s.ToolsTotal, s.Sessions, truncate(src, 50))
	}
	_ = tw.Flush()
	fmt.Fprintf(a.stdout, "\n(%s)\n", rep.Source)
	return nil
}

// agentView is the view of a configured agent.
func agentView(cfg *config.Config, name string) *agentview.View {
	return agentview.New(cfg.Agents[name], cfg.Gateway.Separator, gateway.BuiltinNames)
}

// withCheckHub runs f on a throwaway hub connected to every server cfg's
// agents use, closed afterwards.
func (a *app) withCheckHub(ctx context.Context, cfg *config.Config, f func(*hub.Hub)) {
	h := a.checkHub(cfg)
	defer h.Close(context.Background())
	h.Apply(ctx, cfg.HubServers())
	f(h)
}

// agentShow is what `weft agents show NAME` prints.
type agentShow struct {
	Source string `json:"source"`
	gateway.AgentDetail
	Config agentConfig `json:"config"`
}

// agentConfig is the agent's config as shown: no token values.
type agentConfig struct {
	File         string            `json:"file"`
	Instances    map[string]string `json:"instances"` // server → "shared" or its own instance
	AllowedTools []string          `json:"allowed_tools,omitempty"`
	DeniedTools  []string          `json:"denied_tools,omitempty"`
	MaxTools     int               `json:"max_tools"`
	Autonomy     string            `json:"autonomy"`
	Model        string            `json:"model,omitempty"`
	Token        bool              `json:"token"`
}

func (a *app) agentsShow(ctx context.Context, name string) error {
	out, err := a.agentDetail(ctx, name)
	if err != nil {
		return err
	}
	if a.jsonOut {
		return writeJSON(a.stdout, out)
	}
	c := out.Config
	fmt.Fprintf(a.stdout, "agent %s (%s)\n  file: %s\n  autonomy: %s\n  max_tools: %d\n", name, out.Source, c.File, c.Autonomy, c.MaxTools)
	if c.Model != "" {
		fmt.Fprintf(a.stdout, "  model: %s\n", c.Model)
	}
	fmt.Fprintf(a.stdout, "  token: %v\n  sessions: %d\n  servers:\n", c.Token, out.Agent.Sessions)
	for _, s := range out.Agent.Servers {
		fmt.Fprintf(a.stdout, "    %s (%s)\n", s, c.Instances[s])
	}
	if len(c.AllowedTools)+len(c.DeniedTools) > 0 {
		fmt.Fprintf(a.stdout, "  allowed_tools: %v\n  denied_tools: %v\n", c.AllowedTools, c.DeniedTools)
	}
	fmt.Fprintf(a.stdout, "  tools (%d of %d):\n", out.Agent.ToolsExposed, out.Agent.ToolsTotal)
	for _, t := range out.Listed {
		fmt.Fprintf(a.stdout, "    %s\n", t)
	}
	for _, t := range out.Hidden {
		fmt.Fprintf(a.stdout, "    %s (search only)\n", t)
	}
	return nil
}

// agentDetail reads one agent's detail, live or from a health check.
func (a *app) agentDetail(ctx context.Context, name string) (agentShow, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return agentShow{}, err
	}
	spec := cfg.Agents[name]
	if spec == nil {
		return agentShow{}, cfg.NoAgentError(name)
	}
	out := agentShow{Source: "live", Config: agentConfig{File: spec.Source, Instances: map[string]string{}, AllowedTools: spec.AllowedTools,
		DeniedTools: spec.DeniedTools, MaxTools: spec.MaxTools, Autonomy: spec.Autonomy, Model: spec.Agent.LLM.Model,
		Token: spec.Token != "" || spec.TokenEnv != ""}}
	for n, u := range spec.Uses {
		out.Config.Instances[n] = "shared"
		if !u.Shared() {
			out.Config.Instances[n] = "own instance " + u.Instance
		}
	}
	ok, err := a.onLive(cfg, func(c adminClient) error {
		return c.getJSON(ctx, gateway.AgentsAdminPath+"/"+name, &out.AgentDetail)
	})
	if err != nil {
		return agentShow{}, err
	}
	if !ok {
		out.Source = "health check of " + cfg.Path
		a.withCheckHub(ctx, cfg, func(h *hub.Hub) { out.AgentDetail = gateway.AgentDetailOf(h, agentView(cfg, name), 0) })
	}
	return out, nil
}

// agentListing is `weft mcp list --agent NAME`: the servers and tools of
// the agent's view, as `weft mcp list` prints a weft's.
func (a *app) agentListing(ctx context.Context, name string) error {
	out, err := a.agentDetail(ctx, name)
	if err != nil {
		return err
	}
	l := listing{Source: out.Source, Status: out.Status, sources: map[string]string{}}
	for _, s := range l.Servers {
		l.sources[s.Name] = out.Config.File
	}
	if a.jsonOut {
		return writeJSON(a.stdout, l)
	}
	a.printListing(l)
	return nil
}

// checkAgent fails unless the config defines the named agent.
func (a *app) checkAgent(name string) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if cfg.Agents[name] == nil {
		return cfg.NoAgentError(name)
	}
	return nil
}
