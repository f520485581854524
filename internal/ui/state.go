package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// ServerView is a server's row on the servers page.
type ServerView struct {
	hub.ServerStatus
	Stats StatsView `json:"stats"`
}

// ToolView is a tool's row on the tools page.
type ToolView struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Description string `json:"description,omitempty"`
	Listed      bool   `json:"listed"`
}

// State is the dashboard's snapshot; events update it between snapshots.
type State struct {
	Servers  []ServerView `json:"servers"`
	Tools    []ToolView   `json:"tools"`
	Withheld []Withheld   `json:"withheld"`
	Active   []CallView   `json:"active_calls"`
	Recent   []CallView   `json:"recent_calls"`
	Plans    []Plan       `json:"plans"`
	Sessions []hub.Caller `json:"sessions"`
	Agents   []AgentView  `json:"agents"`
	Errors   []string     `json:"errors,omitempty"`
}

func (o Options) snapshot() State {
	st := State{Servers: o.servers(), Tools: []ToolView{}, Withheld: []Withheld{}, Plans: []Plan{}, Sessions: []hub.Caller{}}
	for _, t := range o.Hub.Catalog().Tools {
		st.Tools = append(st.Tools, ToolView{Name: t.Name, Server: t.Server, Description: t.Def.Description, Listed: t.Listed})
	}
	if o.Actions != nil {
		st.Withheld = append(st.Withheld, o.Actions.Withheld()...)
	}
	st.Active, st.Recent = o.Live.calls()
	if o.Plans != nil {
		plans, err := o.Plans()
		if err != nil {
			st.Errors = append(st.Errors, fmt.Sprintf("plans: %v", err))
		}
		st.Plans = append(st.Plans, plans...)
	}
	st.Sessions = o.sessions()
	st.Agents = o.agents()
	return st
}

func (o Options) sessions() []hub.Caller {
	out := []hub.Caller{}
	if o.Sessions != nil {
		out = append(out, o.Sessions()...)
	}
	return out
}

func (o Options) servers() []ServerView {
	list := o.Hub.List()
	out := make([]ServerView, len(list))
	for i, s := range list {
		out[i] = ServerView{ServerStatus: s, Stats: o.Live.statsOf(s.Name)}
	}
	return out
}

func (o Options) state(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(o.snapshot())
}

// serversEvery bounds how often the servers table is pushed while calls
// stream in: counters and latencies change with every call.
const serversEvery = 500 * time.Millisecond

// events streams server-sent events until the page goes away: "call" and
// "plan" as they happen, "servers" (the whole table) whenever it changed,
// at most every serversEvery, and at once when a server's status changes;
// "agents" and "sessions" (their whole tables) when they changed, checked
// every serversEvery.
func (o Options) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "weft: streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch, cancel := o.Live.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	tick := time.NewTicker(serversEvery)
	defer tick.Stop()
	sent := ^uint64(0)
	agents, sessions := changes{name: "agents"}, changes{name: "sessions"}
	pushServers := func() bool {
		sent = o.Live.version.Load()
		data, _ := json.Marshal(o.servers())
		return write(w, flusher, event{"servers", data})
	}
	if !pushServers() {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-o.Live.done:
			return
		case ev := <-ch:
			if !write(w, flusher, ev) {
				return
			}
			if ev.name == "server" && !pushServers() {
				return
			}
		case <-tick.C:
			if o.Live.version.Load() != sent && !pushServers() {
				return
			}
			if !agents.push(w, flusher, o.agents()) || !sessions.push(w, flusher, o.sessions()) {
				return
			}
		}
	}
}

func write(w http.ResponseWriter, f http.Flusher, ev event) bool {
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.name, ev.data); err != nil {
		return false
	}
	f.Flush()
	return true
}

// changes pushes a table as an event when it differs from the last one
// pushed.
type changes struct {
	name string
	last []byte
}

// push sends v unless it is what was sent last; false when the page went
// away.
func (c *changes) push(w http.ResponseWriter, f http.Flusher, v any) bool {
	data, err := json.Marshal(v)
	if err != nil || bytes.Equal(data, c.last) {
		return true
	}
	c.last = data
	return write(w, f, event{c.name, data})
}
