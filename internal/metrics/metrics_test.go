package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/metrics"
	"github.com/weft-dev/weft/internal/testutil"
)

// scrape returns the metrics page as Prometheus would read it.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func newMetrics(t *testing.T, maxTools int) *metrics.Metrics {
	h := hub.New(hub.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { h.Close(context.Background()) })
	return metrics.New(metrics.Options{Hub: h, MaxToolLabels: maxTools,
		Sessions: func() map[metrics.SessionKey]int {
			return map[metrics.SessionKey]int{{Face: "http"}: 2, {Face: "http", Agent: "coder"}: 1, {Face: "stdio", Agent: "coder"}: 1}
		},
		UserInstances: func() map[string]int { return map[string]int{"team": 3} }})
}

func call(server, tool string, outcome hub.Outcome, total, upstream time.Duration) *hub.Call {
	return &hub.Call{Server: server, Tool: tool, Outcome: outcome, Duration: total, Upstream: upstream}
}

func TestOutputPassesPromtoolAndCountsCalls(t *testing.T) {
	promtool := testutil.SystemTool(t, "promtool", "prometheus")
	m := newMetrics(t, 0)
	ctx := context.Background()
	m.CallEnded(ctx, call("fs", "fs__read", hub.OutcomeOK, 12*time.Millisecond, 10*time.Millisecond))
	m.CallEnded(ctx, call("fs", "fs__read", hub.OutcomeOK, 3*time.Millisecond, 2*time.Millisecond))
	m.CallEnded(ctx, call("fs", "fs__read", hub.OutcomeTimeout, 30*time.Second, 0))
	m.CallEnded(ctx, call("", "nope", hub.OutcomeUnavailable, time.Millisecond, 0))
	m.ServerChanged(hub.ServerEvent{Name: "fs", Status: hub.StatusActive, Reconnected: true})
	m.Reloaded(40*time.Millisecond, nil)
	m.PlanStep("done")
	m.PlanRun(nil)
	m.Cost("researcher", 0.25)
	out := scrape(t, m)

	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, msg)
	}
	wantMetrics(t, out,
		`weft_tool_calls_total{outcome="ok",server="fs",tool="fs__read"} 2`,
		`weft_tool_calls_total{outcome="timeout",server="fs",tool="fs__read"} 1`,
		`weft_tool_calls_total{outcome="unavailable",server="none",tool="nope"} 1`,
		`weft_upstream_call_duration_seconds_count{server="fs"} 2`,
		`weft_tool_call_added_seconds_count{server="fs"} 3`,
		`weft_tool_call_added_seconds_bucket{server="fs",le="0.0025"} 2`, // 2 ms and 1 ms added
		`weft_upstream_reconnects_total{server="fs"} 1`,
		`weft_config_reloads_total{result="ok"} 1`,
		`weft_plan_steps_total{outcome="done"} 1`,
		`weft_plan_runs_total{outcome="ok"} 1`,
		`weft_agent_cost_usd_total{agent="researcher"} 0.25`,
		`weft_client_sessions{agent="default",face="http"} 2`,
		`weft_client_sessions{agent="coder",face="http"} 1`,
		`weft_client_sessions{agent="coder",face="stdio"} 1`,
		`weft_upstream_user_instances{server="team"} 3`,
		`weft_catalog_tools{listed="true"} 0`,
		`go_goroutines`,
	)
}

// wantMetrics fails t for each of wants that out lacks.
func wantMetrics(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestToolLabelIsCapped(t *testing.T) {
	m := newMetrics(t, 2)
	for _, tool := range []string{"a", "b", "c", "d", "a"} {
		m.CallEnded(context.Background(), call("s", tool, hub.OutcomeOK, time.Millisecond, time.Millisecond))
	}
	out := scrape(t, m)
	wantMetrics(t, out, `tool="a"} 2`, `tool="b"} 1`, `tool="other"} 2`)
	if strings.Contains(out, `tool="c"`) || strings.Contains(out, `tool="d"`) {
		t.Error("tools beyond the cap got labels of their own")
	}
}

func TestNoToolLabel(t *testing.T) {
	m := newMetrics(t, -1)
	m.CallEnded(context.Background(), call("s", "a", hub.OutcomeOK, time.Millisecond, time.Millisecond))
	if out := scrape(t, m); !strings.Contains(out, `weft_tool_calls_total{outcome="ok",server="s",tool=""} 1`) {
		t.Errorf("with max_tool_labels -1 the call is not counted without a tool label:\n%s", out)
	}
}

// TestRepeatedCallsFindTheirSeries: calls that end like the one before
// them (the last call's series are kept) still count where they belong,
// and the upstream histogram appears once a call of the same label set
// reaches the upstream.
func TestRepeatedCallsFindTheirSeries(t *testing.T) {
	m := newMetrics(t, 0)
	ctx := context.Background()
	m.CallEnded(ctx, call("s", "a", hub.OutcomeLimit, time.Millisecond, 0))
	m.CallEnded(ctx, call("s", "a", hub.OutcomeLimit, time.Millisecond, 0))
	if out := scrape(t, m); strings.Contains(out, `weft_upstream_call_duration_seconds_count{server="s"}`) {
		t.Fatal("an upstream histogram before any call reached the upstream")
	}
	for _, c := range []*hub.Call{
		call("s", "a", hub.OutcomeLimit, time.Millisecond, time.Millisecond),
		call("s", "a", hub.OutcomeOK, time.Millisecond, time.Millisecond),
		call("s", "b", hub.OutcomeOK, time.Millisecond, time.Millisecond),
		call("s", "a", hub.OutcomeOK, time.Millisecond, time.Millisecond),
	} {
		m.CallEnded(ctx, c)
	}
	out := scrape(t, m)
	wantMetrics(t, out,
		`weft_tool_calls_total{outcome="limit",server="s",tool="a"} 3`,
		`weft_tool_calls_total{outcome="ok",server="s",tool="a"} 2`,
		`weft_tool_calls_total{outcome="ok",server="s",tool="b"} 1`,
		`weft_upstream_call_duration_seconds_count{server="s"} 4`,
		`weft_tool_call_duration_seconds_count{server="s"} 6`,
	)
}
