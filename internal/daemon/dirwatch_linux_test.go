package daemon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/goleak"
)

// next waits for the watcher's next event.
func next(t *testing.T, w dirWatcher) fsnotify.Event {
	t.Helper()
	select {
	case ev := <-w.Events():
		return ev
	case err := <-w.Errors():
		t.Fatalf("watch error: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return fsnotify.Event{}
}

// TestDirWatcherSeesEditsNotAnOpenLog: saves by rename, edits in place and
// removals are events; the lines of a file kept open (the audit log) are
// not, so they no longer wake the config watcher.
func TestDirWatcherSeesEditsNotAnOpenLog(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "weft.toml")
	if err := os.WriteFile(cfg, []byte("a = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := newDirWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}

	log, err := os.OpenFile(filepath.Join(dir, "audit.jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if ev := next(t, w); !ev.Has(fsnotify.Create) || filepath.Base(ev.Name) != "audit.jsonl" {
		t.Fatalf("event %v, want the log's creation", ev)
	}
	for range 100 {
		if _, err := log.WriteString("{}\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cfg, []byte("a = 2\n"), 0o600); err != nil { // an edit in place
		t.Fatal(err)
	}
	if ev := next(t, w); ev.Name != cfg || !ev.Has(fsnotify.Write) {
		t.Fatalf("event %v after the log's lines and an edit in place, want the edit (%s written)", ev, cfg)
	}

	tmp := filepath.Join(dir, ".weft.toml.tmp")
	if err := os.WriteFile(tmp, []byte("a = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, cfg); err != nil {
		t.Fatal(err)
	}
	ev := next(t, w)
	for ; ev.Name != cfg; ev = next(t, w) {
		if filepath.Base(ev.Name) != ".weft.toml.tmp" {
			t.Fatalf("event %v before the save by rename", ev)
		}
	}
	if !ev.Has(fsnotify.Create) {
		t.Fatalf("event %v, want %s created by the rename", ev, cfg)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, w); ev.Name != cfg || !ev.Has(fsnotify.Remove) {
		t.Fatalf("event %v, want %s removed", ev, cfg)
	}
	if got := w.WatchList(); len(got) != 1 || got[0] != dir {
		t.Fatalf("watch list %v, want [%s]", got, dir)
	}
	if err := w.Remove(dir); err != nil {
		t.Fatal(err)
	}
}
