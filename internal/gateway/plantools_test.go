package gateway_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// fakePlans runs a "plan" of three steps, reporting progress for each.
type fakePlans struct{ gotOpts gateway.PlanRunOptions }

func (f *fakePlans) List(context.Context) (gateway.PlanList, error) {
	return gateway.PlanList{Plans: []gateway.PlanSummary{{ID: "p1", Title: "One", Steps: 2, LastRun: "never run"}}}, nil
}
func (f *fakePlans) Show(_ context.Context, id string) (gateway.PlanDoc, error) {
	return gateway.PlanDoc{Text: "Plan: " + id, Data: []byte(`{"id":"` + id + `"}`)}, nil
}
func (f *fakePlans) DryRun(_ context.Context, id string, _ map[string]any) (gateway.PlanDoc, error) {
	return gateway.PlanDoc{}, errors.New("no plan " + id)
}
func (f *fakePlans) Run(_ context.Context, id string, o gateway.PlanRunOptions, progress func(string, int, int)) (gateway.PlanDoc, error) {
	f.gotOpts = o
	for i := 1; i <= 3; i++ {
		progress("step done", i, 3)
	}
	return gateway.PlanDoc{Data: []byte(`{"status":"completed","id":"` + id + `"}`)}, nil
}

func connectPlans(t *testing.T, plans gateway.Plans, progress chan *mcp.ProgressNotificationParams) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	h := hub.New(hub.Options{Reserved: gateway.BuiltinNames})
	t.Cleanup(func() { h.Close(ctx) })
	gw := gateway.New(h, gateway.Options{Plans: plans})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress <- req.Params },
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestPlanToolsCallThePlans(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	f := &fakePlans{}
	cs := connectPlans(t, f, progress)
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"weft__plan_list", nil, false, `"title":"One"`},
		{"weft__plan_show", map[string]any{"id": "p1"}, false, "Plan: p1"},
		{"weft__plan_dry_run", map[string]any{"id": "nope"}, true, "no plan nope"},
		{"weft__plan_run", map[string]any{"id": "p1", "max_parallel": 3, "resume": true, "vars": map[string]any{"k": 1}}, false, `"status":"completed"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args, Meta: mcp.Meta{"progressToken": "tok"}})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s: isError %v, %q; want %v and %q", tc.tool, res.IsError, text, tc.isError, tc.want)
		}
	}
	if f.gotOpts.MaxParallel != 3 || !f.gotOpts.Resume || f.gotOpts.Vars["k"] == nil {
		t.Errorf("run options %+v, want max_parallel 3, resume, vars k", f.gotOpts)
	}
	for want := 1.0; want <= 3; want++ {
		select {
		case p := <-progress:
			if p.Progress != want || p.Total != 3 || p.ProgressToken != "tok" {
				t.Errorf("progress %+v, want %v of 3 for tok", p, want)
			}
		case <-ctx.Done():
			t.Fatalf("progress %v never came", want)
		}
	}
}

func TestPlanToolsWithoutPlansSaySo(t *testing.T) {
	cs := connectPlans(t, nil, make(chan *mcp.ProgressNotificationParams, 1))
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "weft__plan_list"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "plans are not available") {
		t.Errorf("got %+v, want a tool error saying plans are not available", res)
	}
}
