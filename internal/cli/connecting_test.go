package cli

import (
	"bytes"
	"testing"
	"time"
)

func TestConnectingLineExplainsASlowNpx(t *testing.T) {
	for _, c := range []struct {
		target  string
		elapsed time.Duration
		want    string
	}{
		{"npx", time.Second, "connecting to everything… 1s"},
		{"/usr/bin/npx", 6 * time.Second, "connecting to everything… 6s — npx may be downloading the package"},
		{`C:\node\npx.cmd`, 6 * time.Second, "connecting to everything… 6s — npx may be downloading the package"},
		{"uvx", 6 * time.Second, "connecting to everything… 6s"},
	} {
		var w bytes.Buffer
		l := startConnecting(&w, "everything", c.target)
		l.stop()
		if got := l.text(c.elapsed); got != c.want {
			t.Errorf("%s after %v: %q, want %q", c.target, c.elapsed, got, c.want)
		}
		if w.Len() != 0 {
			t.Errorf("drew %q on a writer that is not a terminal", w.String())
		}
	}
}
