package plan

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStoreRoundTripAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	s := &Store{Dir: dir, Sync: true}
	p := chainPlan()
	p.FillDefaults(time.Now())
	if err := s.Save(p); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCheckpoint(crashed(p)); err != nil {
		t.Fatal(err)
	}
	modes := map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "chain.json"): 0o600,
		filepath.Join(dir, "chain.run.json"): 0o600, filepath.Join(dir, "chain.results"): 0o700}
	results, _ := filepath.Glob(filepath.Join(dir, "chain.results", "*"))
	if len(results) == 0 {
		t.Error("no result files written")
	}
	for _, f := range results {
		modes[f] = 0o600
	}
	for path, want := range modes {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, st.Mode().Perm(), want)
		}
	}
	list, bad, err := s.List()
	if err != nil || len(bad) != 0 || len(list) != 1 || list[0].Hash() != p.Hash() {
		t.Fatalf("list %v bad %v err %v", list, bad, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the store, want 3 (no temporary files left)", len(entries))
	}
	if err := s.Delete("chain"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("chain"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete: %v, want ErrNotFound", err)
	}
	if _, ok, _ := s.LoadCheckpoint("chain"); ok {
		t.Error("the checkpoint outlived its plan")
	}
	if _, err := os.Stat(filepath.Join(dir, "chain.results")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the results outlived their plan: %v", err)
	}
}

func TestStoreRefusesBadIDs(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	for _, id := range []string{"../escape", "a/b", "", ".hidden"} {
		if _, err := s.Load(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestDryRunCallsNothing(t *testing.T) {
	p := mustParse(t, `{"id":"dry","title":"dry","variables":{"path":"/tmp/a"},"steps":[
	 {"index":1,"title":"read","tool_calls":[{"name":"echo","args":{"path":"${path}"}}],"result_variable":"code"},
	 {"index":2,"title":"write","depends_on":[1],"tool_calls":[{"name":"echo","args":{"body":"${code.text}","note":"from ${path}: ${code}"}}]}]}`)
	d, err := Dry(p, map[string]any{"path": "/tmp/b"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	d.Print(&out)
	want := `1. read [echo] {"path":"/tmp/b"}
2. write [echo] {"body":"<result of step 1: code.text>","note":"from /tmp/b: <result of step 1: code>"} ← after: 1
Dry run: 2 tool calls would be made; none was.
`
	if out.String() != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestRenderMatchesSpec(t *testing.T) {
	p := mustParse(t, `{"id":"auth","title":"Add authentication to REST API","steps":[
	 {"index":1,"title":"Read existing app code","tool_calls":[{"name":"read_file"}],"result_variable":"app_code"},
	 {"index":2,"title":"Analyze dependencies","depends_on":[1],"tool_calls":[{"name":"search_code"}],"result_variable":"deps"},
	 {"index":3,"title":"Create auth module","depends_on":[1,2],"tool_calls":[{"name":"write_file"}],"result_variable":"auth_module"},
	 {"index":4,"title":"Run tests","depends_on":[3],"tool_calls":[{"name":"run_command"}]}]}`)
	var out bytes.Buffer
	Render(&out, p)
	want := `Plan: Add authentication to REST API (4 steps)

  1. Read existing app code   [read_file]
  2. Analyze dependencies     [search_code]    ← after: 1
  3. Create auth module       [write_file]     ← after: 1, 2
  4. Run tests                [run_command]    ← after: 3

Variables: app_code (step 1), deps (step 2), auth_module (step 3)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), strings.ReplaceAll(want, " ", "·"))
	}
}

func TestLockIsExclusive(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	unlock, err := s.Lock("p")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock("p"); !errors.Is(err, ErrBusy) {
		t.Errorf("second lock: %v, want ErrBusy", err)
	}
	unlock()
	again, err := s.Lock("p")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}

func TestLoadCheckpointMissingResult(t *testing.T) {
	s := &Store{Dir: t.TempDir()}
	p := chainPlan()
	if err := s.SaveCheckpoint(crashed(p)); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(s.Dir, "chain.results", "*.json"))
	if len(files) == 0 {
		t.Fatal("no result files")
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.LoadCheckpoint("chain")
	if err == nil || !strings.Contains(err.Error(), "is missing; delete") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %v, want one line saying the file is missing and what to delete", err)
	}
}
