package upstream

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestLineFilterReadsOnAfterAHandOff holds the line filter to its order
// whether a line it hands to take is the last one buffered (the reader
// yields to the woken caller, then reads on) or more follow in the buffer.
func TestLineFilterReadsOnAfterAHandOff(t *testing.T) {
	lines := []string{`{"id":"take-1"}`, `{"method":"a"}`, `{"id":"take-2"}`, `{"id":"take-3"}`, `{"method":"b"}`}
	for _, tc := range []struct {
		name string
		// write sends the lines: all at once, or one at a time so that each
		// taken line is the last one buffered.
		write func(w io.Writer)
	}{
		{"all buffered", func(w io.Writer) { _, _ = io.WriteString(w, strings.Join(lines, "\n")+"\n") }},
		{"one line at a time", func(w io.Writer) {
			for _, l := range lines {
				_, _ = io.WriteString(w, l+"\n")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			done := make(chan struct{})
			go func() {
				defer close(done)
				tc.write(pw)
				_ = pw.Close()
			}()
			var taken []string
			take := func(msg []byte) bool {
				if bytes.Contains(msg, []byte("take-")) {
					taken = append(taken, string(msg))
					return true
				}
				return false
			}
			out, err := io.ReadAll(newLineFilter(pr, 1<<20, slog.New(slog.DiscardHandler), take))
			<-done
			if err != nil {
				t.Fatal(err)
			}
			if want := lines[1] + "\n" + lines[4] + "\n"; string(out) != want {
				t.Errorf("passed on %q, want %q", out, want)
			}
			if want := []string{lines[0], lines[2], lines[3]}; strings.Join(taken, " ") != strings.Join(want, " ") {
				t.Errorf("took %q, want %q", taken, want)
			}
		})
	}
}

// A line longer than the read buffer is read in pieces and handed on whole,
// up to the size bound and not a byte over it.
func TestLineReaderJoinsLongLinesUpToTheBound(t *testing.T) {
	const size, max = 16, 1000
	for _, tc := range []struct {
		name    string
		line    int // bytes before the newline
		tooLong bool
	}{
		{"shorter than the buffer", size / 2, false},
		{"many buffers long", 37 * size, false},
		{"at the bound", max - 1, false}, // with its newline: max bytes
		{"one byte over", max, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := strings.Repeat("x", tc.line) + "\n"
			keep := func(b []byte) ([]byte, error) { return b, nil }
			out, err := io.ReadAll(newLineReaderSize(io.NopCloser(strings.NewReader(line+"y\n")), size, max, keep))
			if tc.tooLong {
				if !errors.Is(err, ErrMessageTooLarge) {
					t.Fatalf("err = %v, want ErrMessageTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != line+"y\n" {
				t.Errorf("read %d bytes, want %d", len(out), len(line)+2)
			}
		})
	}
}
