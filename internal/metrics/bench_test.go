package metrics_test

import (
	"context"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/metrics"
)

// BenchmarkCallEnded is what one tool call's end costs the metrics: its
// counter and its three histograms, the series looked up by label values.
func BenchmarkCallEnded(b *testing.B) {
	m := metrics.New(metrics.Options{})
	c := &hub.Call{Server: "bench", Tool: "bench__echo", Duration: 512 * time.Microsecond, Upstream: 400 * time.Microsecond, Outcome: hub.OutcomeOK}
	b.ReportAllocs()
	for b.Loop() {
		m.CallEnded(context.Background(), c)
	}
}
