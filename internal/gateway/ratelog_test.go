package gateway

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestQuietLoggerRateLimitsPerSessionLines: one catalog change fails a
// list_changed for each of 2000 idle sessions; the log gets one line (and
// later the count of what it dropped), while other lines pass untouched.
func TestQuietLoggerRateLimitsPerSessionLines(t *testing.T) {
	var buf bytes.Buffer
	l := newQuietLogger(slog.New(slog.NewTextHandler(&buf, nil)), time.Hour)
	for range 2000 {
		l.Warn("calling notifications/tools/list_changed: session closed")
	}
	l.Info("upstream active", "server", "a")
	l.Info("upstream active", "server", "b")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines, want 1 for 2000 list_changed failures and 2 others:\n%s", len(lines), buf.String())
	}
	q := l.Handler().(*quietNotices)
	q.state.next = time.Time{} // the interval passed
	l.Warn("calling notifications/tools/list_changed: session closed")
	if !strings.Contains(buf.String(), "similar_lines_dropped=1999") {
		t.Fatalf("the next line does not count the dropped ones:\n%s", buf.String())
	}
}
