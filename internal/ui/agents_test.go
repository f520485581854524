package ui

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weft-dev/weft/internal/hub"
)

// fakeAgents is one agent, coder, whose session count the test sets.
type fakeAgents struct{ sessions atomic.Int32 }

func (f *fakeAgents) List() []AgentView {
	return []AgentView{{Name: "coder", Servers: []string{"a"}, ToolsExposed: 1, ToolsTotal: 2, Sessions: int(f.sessions.Load())}}
}

func (f *fakeAgents) Tools(name string) ([]ToolView, bool) {
	if name != "coder" {
		return nil, false
	}
	return []ToolView{{Name: "a__echo", Server: "a", Listed: true}}, true
}

func newAgentsHandler(t *testing.T) (http.Handler, *Live, *fakeAgents) {
	h := hub.New(hub.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { h.Close(context.Background()) })
	live := NewLive(nil)
	t.Cleanup(live.Close)
	agents := &fakeAgents{}
	return Handler(Options{Hub: h, Live: live, Agents: agents}), live, agents
}

// The snapshot lists each agent with what it spent; the tools page's
// filter gets the agent's own tools, and an unknown agent 404.
func TestAgentsInSnapshotAndToolFilter(t *testing.T) {
	h, live, _ := newAgentsHandler(t)
	live.Spent("coder", 0.25)
	live.Spent("coder", 0.5)
	live.Spent("coder", -1) // refunds do not exist
	var st State
	if err := json.Unmarshal(do(h, "GET", "/ui/api/state", "", nil).Body.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Agents) != 1 || st.Agents[0].Name != "coder" || st.Agents[0].CostUSD != 0.75 || st.Agents[0].ToolsTotal != 2 {
		t.Fatalf("agents = %+v; want coder, 1 of 2 tools, $0.75", st.Agents)
	}
	if rec := do(h, "GET", "/ui/api/agents/coder/tools", "", nil); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"name":"a__echo"`) {
		t.Fatalf("coder's tools: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, "GET", "/ui/api/agents/ghost/tools", "", nil); rec.Code != http.StatusNotFound {
		t.Fatalf("an unknown agent's tools: %d, want 404", rec.Code)
	}
}

// A new session of an agent reaches an open page as an "agents" event
// with the new count (that an unchanged table is not sent again is
// TestChangesSendsATableOncePerChange).
func TestAgentsEventOnNewSession(t *testing.T) {
	h, _, agents := newAgentsHandler(t)
	r := openEvents(t, h)
	nextAgents := func() []AgentView { // the data of the next agents event
		for {
			if name, data := nextEvent(t, r); name == "agents" {
				var out []AgentView
				if err := json.Unmarshal([]byte(data), &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
		}
	}
	if got := nextAgents(); got[0].Sessions != 0 {
		t.Fatalf("first agents event %+v, want no sessions", got)
	}
	agents.sessions.Store(1)
	if got := nextAgents(); got[0].Sessions != 1 {
		t.Fatalf("agents event after a session opened: %+v, want 1 session", got)
	}
}

// changes sends a table once per change: the same table again writes
// nothing, a changed one is sent, and going back is a change too.
func TestChangesSendsATableOncePerChange(t *testing.T) {
	rec := httptest.NewRecorder()
	c := changes{name: "agents"}
	for _, v := range []int{1, 1, 2, 2, 1} {
		if !c.push(rec, rec, []int{v}) {
			t.Fatal("push reported the page gone")
		}
	}
	if got, want := strings.Count(rec.Body.String(), "event: agents\n"), 3; got != want {
		t.Errorf("%d agents events for tables 1 1 2 2 1, want %d:\n%s", got, want, rec.Body)
	}
}
