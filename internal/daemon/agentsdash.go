package daemon

import (
	"cmp"
	"slices"

	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/metrics"
	"github.com/weft-dev/weft/internal/ui"
)

// faces are the default face and the face of every configured agent, by
// the agent label their sessions and cost are counted under. With
// [gateway] default_agent naming an agent, /mcp is that agent's face and
// the default face serves nobody.
func (d *Daemon) faces() map[string]*gateway.Gateway {
	out := map[string]*gateway.Gateway{}
	if d.agents.Default() == "" {
		out[metrics.DefaultAgent] = d.gw
	}
	for _, name := range d.agents.Names() {
		if face, ok := d.agents.Face(name); ok {
			out[name] = face
		}
	}
	return out
}

// sessionsByFace counts every face's client sessions for the
// weft_client_sessions gauge; the agent label takes configured names and
// "default" only.
func (d *Daemon) sessionsByFace() map[metrics.SessionKey]int {
	out := map[metrics.SessionKey]int{}
	for agent, face := range d.faces() {
		for f, n := range face.SessionsByFace() {
			out[metrics.SessionKey{Face: f, Agent: agent}] += n
		}
	}
	return out
}

// sessionList names every face's client sessions, sorted by agent, face
// and session, for the dashboard.
func (d *Daemon) sessionList() []hub.Caller {
	var out []hub.Caller
	for _, face := range d.faces() {
		out = append(out, face.SessionList()...)
	}
	slices.SortFunc(out, func(a, b hub.Caller) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Face, b.Face), cmp.Compare(a.Session, b.Session))
	})
	return out
}

// dashboardAgents is the agents page's source.
type dashboardAgents struct{ d *Daemon }

var _ ui.Agents = dashboardAgents{}

// List implements ui.Agents: "default" (when /mcp serves everything)
// first, then the configured agents by name.
func (a dashboardAgents) List() []ui.AgentView {
	faces := a.d.faces()
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range faces {
			if n != metrics.DefaultAgent && !yield(n) {
				return
			}
		}
	})
	if faces[metrics.DefaultAgent] != nil {
		names = append([]string{metrics.DefaultAgent}, names...)
	}
	out := make([]ui.AgentView, 0, len(names))
	for _, name := range names {
		face := faces[name]
		st := gateway.AgentStatusOf(a.d.hub, face.View(), len(face.SessionList()))
		out = append(out, ui.AgentView{Name: name, Servers: st.Servers, ToolsExposed: st.ToolsExposed,
			ToolsTotal: st.ToolsTotal, Sessions: st.Sessions})
	}
	return out
}

// Tools implements ui.Agents.
func (a dashboardAgents) Tools(name string) ([]ui.ToolView, bool) {
	face, ok := a.d.agents.Face(name)
	if !ok {
		return nil, false
	}
	var out []ui.ToolView
	for _, t := range face.View().Of(a.d.hub.Catalog()).Tools {
		out = append(out, ui.ToolView{Name: t.Name, Server: t.Server, Description: t.Def.Description, Listed: t.Listed})
	}
	return out, true
}
