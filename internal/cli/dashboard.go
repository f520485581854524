package cli

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/plan"
	"github.com/weft-dev/weft/internal/ui"
)

// dashboardActions carries out the dashboard's actions the way the CLI
// does: server changes are edits of weft.toml, which the running weft's
// config watcher applies (the same path as `weft mcp remove`); approving a
// tool updates the pins file and refreshes the catalog.
type dashboardActions struct {
	rt atomic.Pointer[runtime] // set once the runtime is built
}

var _ ui.Actions = (*dashboardActions)(nil)

func (d *dashboardActions) runtime() (*runtime, error) {
	rt := d.rt.Load()
	if rt == nil {
		return nil, fmt.Errorf("weft is still starting; retry in a moment")
	}
	return rt, nil
}

// Server implements ui.Actions.
func (d *dashboardActions) Server(ctx context.Context, name, action string) error {
	rt, err := d.runtime()
	if err != nil {
		return err
	}
	path := rt.cfg.Path
	switch action {
	case "reconnect":
		cfg, ok := rt.hub.Config(name)
		if !ok {
			return fmt.Errorf("%s: %w", name, hub.ErrNotFound)
		}
		_, err = rt.hub.Swap(ctx, cfg)
	case "disable":
		err = config.SetServerEnabled(path, name, false)
	case "enable":
		err = config.SetServerEnabled(path, name, true)
	case "remove":
		err = config.RemoveServer(path, name)
	default:
		err = fmt.Errorf("unknown action %q; use reconnect, disable, enable or remove", action)
	}
	if err == nil && rt.obs.audit != nil && action != "reconnect" {
		rt.obs.audit.ConfigChanged(auditChange("dashboard", action, name))
	}
	return err
}

// Approve implements ui.Actions.
func (d *dashboardActions) Approve(_ context.Context, server, tool string) error {
	rt, err := d.runtime()
	if err != nil {
		return err
	}
	if _, err := rt.pins.Approve(server, tool); err != nil {
		return err
	}
	rt.hub.Refresh()
	return nil
}

// Withheld implements ui.Actions.
func (d *dashboardActions) Withheld() []ui.Withheld {
	rt := d.rt.Load()
	if rt == nil {
		return nil
	}
	var out []ui.Withheld
	for _, c := range rt.pins.Pending() {
		out = append(out, ui.Withheld{Server: c.Server, Tool: c.Tool})
	}
	return out
}

// dashboardRoute builds the /ui/ route; token is the HTTP face's token.
func (o *observability) dashboardRoute(cfg *config.Config, src ui.Source, actions ui.Actions) gateway.Route {
	token := ""
	if cfg.Security.HTTPTokenEnv != "" {
		token = os.Getenv(cfg.Security.HTTPTokenEnv)
	}
	h := ui.Handler(ui.Options{Hub: src, Live: o.live, Actions: actions, Token: token, Plans: listPlans,
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
