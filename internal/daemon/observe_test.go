package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestAuditTraceIDFollowsTracing: the audit line names the call's trace
// when the OTEL_* variables turn tracing on, and the log looks for none
// when they do not.
func TestAuditTraceIDFollowsTracing(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(collector.Close)
	for _, tc := range []struct {
		name     string
		endpoint string
		want     bool
	}{{"tracing on", collector.URL, true}, {"tracing off", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.endpoint)
			cfg := &config.Config{}
			cfg.Audit.File = filepath.Join(t.TempDir(), "logs", "audit.jsonl")
			o, err := newObservability(context.Background(), cfg, "test", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			obs := o.observer()
			c := &hub.Call{Tool: "s__t", Server: "s", Start: time.Now(), Outcome: hub.OutcomeOK}
			ctx := obs.CallStarted(context.Background(), c)
			obs.CallEnded(ctx, c)
			o.close()
			recs := testutil.ReadJSONLines(t, cfg.Audit.File)
			if _, got := recs[0]["trace_id"]; len(recs) != 1 || got != tc.want {
				t.Fatalf("lines %v: trace_id present %v, want %v", recs, got, tc.want)
			}
		})
	}
}
