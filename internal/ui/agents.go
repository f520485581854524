package ui

import (
	"encoding/json"
	"net/http"
	"sync"
)

// AgentView is an agent's row on the agents page.
type AgentView struct {
	Name string `json:"name"`
	// Servers are the servers the agent sees, by the names it knows.
	Servers []string `json:"servers"`
	// ToolsExposed counts the tools the agent sees; ToolsTotal the tools
	// its servers offer before its own filters.
	ToolsExposed int `json:"tools_exposed"`
	ToolsTotal   int `json:"tools_total"`
	// Sessions counts the agent's live client sessions.
	Sessions int `json:"sessions"`
	// CostUSD is what its runs and delegations spent since weft started.
	CostUSD float64 `json:"cost_usd"`
}

// Agents are weft's agents as the dashboard reads them.
type Agents interface {
	// List is a row per agent, the default face's ("default") included.
	List() []AgentView
	// Tools lists the tools the named agent sees, under its names; ok is
	// false when no such agent is configured.
	Tools(name string) (tools []ToolView, ok bool)
}

// costs is what each agent spent, in USD, since weft started.
type costs struct {
	mu  sync.Mutex
	usd map[string]float64
}

// Spent adds usd to what agent spent (a run, a delegation) for the agents
// page.
func (l *Live) Spent(agent string, usd float64) {
	if usd <= 0 {
		return
	}
	l.spent.mu.Lock()
	if l.spent.usd == nil {
		l.spent.usd = map[string]float64{}
	}
	l.spent.usd[agent] += usd
	l.spent.mu.Unlock()
}

func (l *Live) costOf(agent string) float64 {
	l.spent.mu.Lock()
	defer l.spent.mu.Unlock()
	return l.spent.usd[agent]
}

// agents is the agents page's rows, with their cost.
func (o Options) agents() []AgentView {
	if o.Agents == nil {
		return []AgentView{}
	}
	list := append([]AgentView{}, o.Agents.List()...)
	for i := range list {
		list[i].CostUSD = o.Live.costOf(list[i].Name)
	}
	return list
}

// agentTools answers the tools page's filter by agent.
func (o Options) agentTools(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var tools []ToolView
	ok := false
	if o.Agents != nil {
		tools, ok = o.Agents.Tools(name)
	}
	if !ok {
		http.Error(w, "weft: no agent "+name+" is configured; pick one from the agents page", http.StatusNotFound)
		return
	}
	if tools == nil {
		tools = []ToolView{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(tools)
}
