package gateway

import (
	"encoding/json"
	"net/http"

	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/hub"
)

// AgentsAdminPath is the admin endpoint `weft agents list` reads live
// agents from; AgentsAdminPath/NAME answers `weft agents show NAME`.
const AgentsAdminPath = "/admin/agents"

// AgentStatus is one agent as `weft agents list` shows it.
type AgentStatus struct {
	Name string `json:"name"`
	// Servers are the servers the agent sees, by the names it knows.
	Servers []string `json:"servers"`
	// ToolsExposed counts the tools the agent sees; ToolsTotal the tools
	// its servers offer before its own filters.
	ToolsExposed int `json:"tools_exposed"`
	ToolsTotal   int `json:"tools_total"`
	// Sessions counts the agent's live client sessions.
	Sessions int `json:"sessions"`
}

// AgentDetail is `weft agents show NAME` and `weft mcp list --agent NAME`:
// the agent's status, and its servers and tools as `weft mcp list` shows
// a weft's.
type AgentDetail struct {
	Agent AgentStatus `json:"agent"`
	Status
}

// AgentStatusOf is the status of view v over h's catalog.
func AgentStatusOf(h *hub.Hub, v *agentview.View, sessions int) AgentStatus {
	cat := h.Catalog()
	return AgentStatus{Name: v.Name(), Servers: v.Servers(h.Names()), ToolsExposed: len(v.Of(cat).Tools),
		ToolsTotal: v.Offered(cat), Sessions: sessions}
}

// AgentDetailOf is the detail of view v over h.
func AgentDetailOf(h *hub.Hub, v *agentview.View, sessions int) AgentDetail {
	d := AgentDetail{Agent: AgentStatusOf(h, v, sessions),
		Status: Status{Listed: []string{}, Hidden: []string{}, Exposed: map[string]int{}}}
	for _, st := range h.List() {
		if name, ok := v.ServerSeen(st.Name); ok {
			st.Name = name
			d.Servers = append(d.Servers, st)
		}
	}
	d.count(v.Of(h.Catalog()).Tools)
	return d
}

// sessions counts the face's live client sessions.
func (g *Gateway) sessions() int {
	n := 0
	for range g.server.Sessions() {
		n++
	}
	return n
}

func (g *Gateway) serveAgentList(w http.ResponseWriter, _ *http.Request) {
	out := []AgentStatus{}
	if g.opts.Agents != nil {
		for _, name := range g.opts.Agents.Names() {
			if face, ok := g.opts.Agents.Face(name); ok {
				out = append(out, AgentStatusOf(g.hub, face.View(), face.sessions()))
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (g *Gateway) serveAgentDetail(w http.ResponseWriter, r *http.Request) {
	var face *Gateway
	ok := false
	if g.opts.Agents != nil {
		face, ok = g.opts.Agents.Face(r.PathValue("name"))
	}
	if !ok {
		http.Error(w, "weft: no agent "+r.PathValue("name")+" is configured; see `weft agents list`", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(AgentDetailOf(g.hub, face.View(), face.sessions()))
}
