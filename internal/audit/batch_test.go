package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
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

// A call whose line is queued when Close comes has its line written:
// Close writes what callers wait on before it closes the file. Here the
// writer in progress ends and Close takes the lock before the waiting
// caller does (the order the lock gives is not fixed).
func TestCloseWritesTheLinesCallersWaitOn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(Options{File: path})
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.writing = true // another caller's write is under way
	l.mu.Unlock()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		l.Write(Record{Time: time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC), Kind: "tool_call", Tool: "queued"})
	}()
	for queued := false; !queued; runtime.Gosched() { // until the line waits in the batch
		l.mu.Lock()
		queued = l.batch.queued == 1
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.writing = false // that write ends; Close is first to the lock
	l.mu.Unlock()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l.turn.Broadcast()
	<-returned
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"tool":"queued"`) {
		t.Fatalf("the line queued before Close is not in the file: %q", data)
	}
}
