package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/ui"
)

// dashboardActions carries out the dashboard's actions through the same
// change path as the CLI, the admin API and mcp_manage (Change).
type dashboardActions struct{ d *Daemon }

var _ ui.Actions = dashboardActions{}

// Server implements ui.Actions.
func (a dashboardActions) Server(ctx context.Context, name, action string) error {
	d := a.d
	switch action {
	case "reconnect":
		cfg, ok := d.hub.Config(name)
		if !ok {
			return fmt.Errorf("%s: %w", name, hub.ErrNotFound)
		}
		_, err := d.hub.Swap(ctx, cfg)
		return err
	case "disable":
		_, err := d.Change(ctx, Edit{Source: "dashboard", File: func(data []byte) ([]byte, error) {
			return config.SetServerEnabledIn(data, d.path, name, false)
		}})
		return err
	case "enable":
		_, err := d.EnableServer(ctx, name)
		return err
	case "remove":
		_, err := d.Change(ctx, Edit{Source: "dashboard", File: func(data []byte) ([]byte, error) {
			return config.RemoveServerFrom(data, d.path, name)
		}})
		return err
	}
	return fmt.Errorf("unknown action %q; use reconnect, disable, enable or remove", action)
}

// Approve implements ui.Actions, as `weft mcp approve SERVER/TOOL` does.
func (a dashboardActions) Approve(_ context.Context, server, tool string) error {
	if _, err := a.d.pins.Approve(server, tool); err != nil {
		return err
	}
	a.d.hub.Refresh()
	return nil
}

// Withheld implements ui.Actions.
func (a dashboardActions) Withheld() []ui.Withheld {
	var out []ui.Withheld
	for _, c := range a.d.pins.Pending() {
		out = append(out, ui.Withheld{Server: c.Server, Tool: c.Tool})
	}
	return out
}

// dashboardRoute builds the /ui/ route; its token is the HTTP face's.
func (o *observability) dashboardRoute(cfg *config.Config, src ui.Source, actions ui.Actions, agents ui.Agents) gateway.Route {
	token := ""
	if cfg.Security.HTTPTokenEnv != "" {
		token = os.Getenv(cfg.Security.HTTPTokenEnv)
	}
	h := ui.Handler(ui.Options{Hub: src, Live: o.live, Actions: actions, Agents: agents, Token: token, Plans: listPlans,
		Sessions: func() []hub.Caller {
			if o.sessionList == nil {
				return nil
			}
			return o.sessionList()
		}})
	return gateway.Route{Pattern: ui.Path, Handler: h}
}

// listPlans reads the stored plans for the dashboard's graphs.
func listPlans() ([]ui.Plan, error) {
	dir, err := plan.DefaultDir()
	if err != nil {
		return nil, err
	}
	plans, _, err := (&plan.Store{Dir: dir}).List()
	if err != nil {
		return nil, err
	}
	out := make([]ui.Plan, 0, len(plans))
	for _, p := range plans {
		v := ui.Plan{ID: p.ID, Title: p.Title}
		for _, s := range p.Steps {
			st := ui.Step{Index: s.Index, Title: s.Title, DependsOn: s.DependsOn}
			for _, c := range s.ToolCalls {
				st.Tools = append(st.Tools, c.Name)
			}
			v.Steps = append(v.Steps, st)
		}
		out = append(out, v)
	}
	return out, nil
}
