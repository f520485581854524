package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/weft-dev/weft/internal/audit"
	"github.com/weft-dev/weft/internal/testutil"
)

// TestConcurrentCallsEachLineWrittenBeforeReturn: with calls ending at
// once (their lines written together), each call's line is in the file
// when its CallEnded returns, and every line is whole.
func TestConcurrentCallsEachLineWrittenBeforeReturn(t *testing.T) {
	l := open(t, audit.Options{})
	const writers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				c := toolCall(`{}`)
				c.Caller.Session = fmt.Sprintf("S-%d-%d", w, i)
				l.CallEnded(context.Background(), c)
				data, err := os.ReadFile(l.Path())
				if err != nil || !bytes.Contains(data, []byte(`"session":"`+c.Caller.Session+`"`)) {
					errs <- fmt.Errorf("session %s not in the file when its call returned (%v)", c.Caller.Session, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(testutil.ReadJSONLines(t, l.Path())); n != writers*each {
		t.Fatalf("%d lines, want %d", n, writers*each)
	}
}

// TestConcurrentCallsRotateAtLineBoundaries: lines written together still
// rotate before the line that would overflow the file, and none is lost.
func TestConcurrentCallsRotateAtLineBoundaries(t *testing.T) {
	const writers, each, maxBytes = 8, 25, 2000
	l := open(t, audit.Options{MaxBytes: maxBytes, MaxFiles: 100})
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range each {
				l.CallEnded(context.Background(), toolCall(`{}`))
			}
		})
	}
	wg.Wait()
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, p := range append([]string{l.Path()}, rotated(l.Path(), 100)...) {
		st, err := os.Stat(p)
		if err != nil {
			break
		}
		if st.Size() > maxBytes {
			t.Errorf("%s: %d bytes, want at most %d", p, st.Size(), maxBytes)
		}
		lines += len(testutil.ReadJSONLines(t, p))
	}
	if lines != writers*each {
		t.Fatalf("%d lines over the files, want %d", lines, writers*each)
	}
}

func rotated(path string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s.%d", path, i))
	}
	return out
}
