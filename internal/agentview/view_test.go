package agentview_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/naming"
	"github.com/weft-dev/weft/internal/testutil"
)

// hubWith runs a hub with one echo server (two tools) under each name.
func hubWith(t *testing.T, names ...string) *hub.Hub {
	t.Helper()
	urls := map[string]string{}
	for _, n := range names {
		urls[n] = testutil.ServeHTTP(t, testutil.NewEchoServer(n, 2))
	}
	// Closed before the servers (cleanups run last first): a server closes
	// only once its clients are gone.
	h := hub.New(hub.Options{})
	t.Cleanup(func() { h.Close(context.Background()) })
	for _, n := range names {
		if _, err := h.Add(context.Background(), &config.Server{Name: n, Target: urls[n], Type: config.TransportHTTP}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func names(s *agentview.Snapshot) []string {
	var out []string
	for _, t := range s.Tools {
		out = append(out, t.Name+"@"+t.Server)
	}
	return out
}

func TestViewsOfOneCatalog(t *testing.T) {
	h := hubWith(t, "a", "b", "a@x")
	cat := h.Catalog()
	x := agentview.New(&config.AgentSpec{Name: "x", DeniedTools: []string{"*tool_0001"}, Uses: map[string]*config.AgentServer{
		"a": {Instance: "a@x", Namespace: "a", Config: &config.Server{}},
		"b": {Instance: "b", Namespace: "b", AllowedTools: []string{"echo"}},
	}}, "__", []string{"weft__search_tools"})
	for _, tc := range []struct {
		view *agentview.View
		want []string
	}{
		{agentview.Everything("__", -1), []string{"a__echo@a", "a__tool_0001@a", "b__echo@b", "b__tool_0001@b"}},
		{x, []string{"a__echo@a", "b__echo@b"}},
	} {
		if got := names(tc.view.Of(cat)); !slices.Equal(got, tc.want) {
			t.Errorf("view %q shows %v; want %v", tc.view.Name(), got, tc.want)
		}
	}
	for _, tc := range []struct {
		name, want string
		outside    bool
	}{
		{"a__echo", naming.Join("a@x", "__", "echo"), false}, // the agent's own instance, renamed
		{"b__echo", "b__echo", false},                        // shared
		{"weft__search_tools", "weft__search_tools", false},  // weft's own
		{"b__tool_0001", "", true},                           // the server's filter for x
		{"a__tool_0001", "", true},                           // x's own glob
		{"c__echo", "", true},                                // no such server in x
		{naming.Join("a@x", "__", "echo"), "", true},         // the instance's hub name
	} {
		got, err := x.Resolve(cat, tc.name)
		if tc.outside {
			var o *agentview.ErrOutside
			if !errors.As(err, &o) || !errors.Is(err, hub.ErrUnknownTool) || o.Error() != `unknown tool "`+tc.name+`" for agent x` {
				t.Errorf("Resolve(%s) = %q, %v; want outside the view", tc.name, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := agentview.Everything("__", -1).Resolve(cat, naming.Join("a@x", "__", "echo")); err == nil {
		t.Error("the view of everything resolves an agent's instance tool")
	}
	if got, err := agentview.Everything("__", -1).Resolve(cat, "z__later"); err != nil || got != "z__later" {
		t.Errorf("the view of everything refuses a name not listed yet: %q %v", got, err)
	}
}

// A name of a server of the view that has not listed it yet maps to its
// hub name, so a call can wait for the server.
func TestResolvePendingServer(t *testing.T) {
	h := hubWith(t)
	x := agentview.New(&config.AgentSpec{Name: "x", Uses: map[string]*config.AgentServer{
		"m": {Instance: "m@x", Namespace: "m", Config: &config.Server{}},
	}}, "__", nil)
	if got, err := x.Resolve(h.Catalog(), "m__read"); err != nil || got != naming.Join("m@x", "__", "read") {
		t.Errorf("Resolve(m__read) = %q, %v; want the instance's hub name", got, err)
	}
}
