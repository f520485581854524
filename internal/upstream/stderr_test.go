package upstream

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// newRelayForTest returns a relay logging as text into a buffer, on a clock
// the test moves.
func newRelayForTest() (*stderrRelay, *bytes.Buffer, *time.Time) {
	var buf bytes.Buffer
	r := newStderrRelay(slog.New(slog.NewTextHandler(&buf, nil)))
	now := time.Unix(1000, 0)
	r.now = func() time.Time { return now }
	return r, &buf, &now
}

func TestStderrRelaySplitsAndBoundsLines(t *testing.T) {
	r, buf, _ := newRelayForTest()
	long := strings.Repeat("y", maxStderrLine+10)
	for _, chunk := range []string{"one\ntw", "o\r\n", long, "\nlast"} {
		if n, err := r.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", chunk[:min(len(chunk), 10)], n, err)
		}
	}
	r.flush()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		_, v, _ := strings.Cut(l, "line=")
		lines = append(lines, v)
	}
	want := []string{"one", "two", strings.Repeat("y", maxStderrLine), "yyyyyyyyyy", "last"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("logged %d lines %.80q…, want %d: one, two, the long line in two pieces, last", len(lines), lines, len(want))
	}
}

func TestStderrRelayRateLimitsAndCountsDrops(t *testing.T) {
	r, buf, now := newRelayForTest()
	// A flood of 1000 lines at one instant: the burst is logged, the rest dropped.
	_, _ = r.Write(bytes.Repeat([]byte("noise\n"), 1000))
	if got := strings.Count(buf.String(), "line=noise"); got != stderrBurst {
		t.Fatalf("logged %d lines of the flood, want the burst %d", got, stderrBurst)
	}
	// A second later the bucket has refilled by the rate; the next line
	// reports the drops first.
	*now = now.Add(time.Second)
	_, _ = r.Write([]byte("after\n"))
	out := buf.String()
	if !strings.Contains(out, fmt.Sprintf("dropped=%d", 1000-stderrBurst)) {
		t.Fatalf("drops not reported as %d:\n%s", 1000-stderrBurst, out[max(0, len(out)-400):])
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "line=after") {
		t.Errorf("the line after the pause was not logged last")
	}
}

// os/exec copies a child's stderr through ReadFrom when the relay has one;
// it relays the same lines as Write, however the reads split them.
func TestStderrRelayReadFrom(t *testing.T) {
	r, buf, _ := newRelayForTest()
	text := "first\n" + strings.Repeat("z", stderrReadBuffer+5) + "\nlast"
	n, err := r.ReadFrom(strings.NewReader(text))
	if n != int64(len(text)) || err != nil {
		t.Fatalf("ReadFrom = %d, %v; want %d, nil", n, err, len(text))
	}
	r.flush()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		_, v, _ := strings.Cut(l, "line=")
		lines = append(lines, v)
	}
	want := []string{"first", strings.Repeat("z", stderrReadBuffer+5), "last"}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("logged %.80q…, want first, the long line whole, last", lines)
	}
}
