package audit

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One large line (arguments logged in full, a long error) is written and
// its buffer let go: the log does not keep a buffer of that size for the
// rest of its life.
func TestALargeLineLeavesNoLargeBuffer(t *testing.T) {
	l, err := Open(Options{File: filepath.Join(t.TempDir(), "audit.log"), LogArguments: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	big := json.RawMessage(`{"content":"` + strings.Repeat("x", 4<<20) + `"}`)
	at := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	l.Write(Record{Time: at, Kind: "tool_call", Args: big})
	l.Write(Record{Time: at, Kind: "tool_call"}) // the spare buffer is reused
	l.Write(Record{Time: at, Kind: "tool_call"})
	l.mu.Lock()
	defer l.mu.Unlock()
	if held := cap(l.batch.buf) + cap(l.batch.spare); held > keptBatchBytes {
		t.Fatalf("the log holds %d bytes of buffers after a 4 MiB line, want at most %d", held, keptBatchBytes)
	}
}
