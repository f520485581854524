package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// resultsSuffix names the directory of a run's variables beside its plan:
// <id>.results/. Each variable is one file, written once, so that a step
// costs the size of its own result rather than of every result so far.
const resultsSuffix = ".results"

func (s *Store) resultsDir(id string) string { return filepath.Join(s.Dir, id+resultsSuffix) }

// checkpointWriter saves one run's checkpoints. It writes each variable to
// its own file the first time it is seen, then only the small checkpoint that
// refers to the files. A variable never changes once set in a run (result
// variables are unique and distinct from plan variables), so a name already
// written need not be written again.
type checkpointWriter struct {
	s     *Store
	mu    sync.Mutex
	run   string            // plan id and start time of the run the files belong to
	files map[string]string // variable name → file written during this run
}

func (w *checkpointWriter) save(cp *Checkpoint) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	run := cp.PlanID + "\x00" + cp.StartedAt.String()
	fresh := run != w.run
	if fresh {
		w.run, w.files = run, map[string]string{}
	}
	refs := make(map[string]string, len(cp.Variables))
	for name, v := range cp.Variables {
		f, ok := w.files[name]
		if !ok {
			var err error
			if f, err = w.s.writeResult(cp.PlanID, name, v); err != nil {
				return err
			}
			w.files[name] = f
		}
		refs[name] = f
	}
	disk := *cp
	disk.Variables, disk.Results = nil, refs
	b, err := json.Marshal(&disk)
	if err != nil {
		return fmt.Errorf("encode the checkpoint of plan %s: %w", cp.PlanID, err)
	}
	// The files are on disk before the checkpoint that refers to them.
	if err := w.s.write(w.s.checkpointPath(cp.PlanID), b); err != nil {
		return err
	}
	if fresh {
		// Files of earlier runs are no longer referenced once this run's
		// first checkpoint replaced theirs.
		w.s.pruneResults(cp.PlanID, refs)
	}
	return nil
}

// writeResult writes one variable to a file named by a hash of its name and
// value: rewriting it (a resume in a new process) replaces it with the same
// bytes, and a value of another run never overwrites a file the checkpoint
// on disk still refers to.
func (s *Store) writeResult(id, name string, v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode variable %s of plan %s: %w", name, id, err)
	}
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(b)
	file := hex.EncodeToString(h.Sum(nil)[:16]) + ".json"
	dir := s.resultsDir(id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create the results directory %s: %w", dir, err)
	}
	return file, s.write(filepath.Join(dir, file), b)
}

// pruneResults removes the result files keep does not name. Failing to
// remove one only leaves it behind, so errors are ignored.
func (s *Store) pruneResults(id string, keep map[string]string) {
	dir := s.resultsDir(id)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	kept := make(map[string]bool, len(keep))
	for _, f := range keep {
		kept[f] = true
	}
	for _, e := range entries {
		if !kept[e.Name()] {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// loadResults reads the variable files a checkpoint refers to back into its
// Variables. A checkpoint written before results had their own files holds
// its variables inline and has no Results.
func (s *Store) loadResults(cp *Checkpoint) error {
	if cp.Results == nil {
		return nil
	}
	if cp.Variables == nil {
		cp.Variables = make(map[string]any, len(cp.Results))
	}
	for name, file := range cp.Results {
		path := filepath.Join(s.resultsDir(cp.PlanID), file)
		if filepath.Base(file) != file || file == "." || file == ".." {
			return fmt.Errorf("variable %s refers to %q, not a file of %s; delete %s to start over",
				name, file, s.resultsDir(cp.PlanID), s.checkpointPath(cp.PlanID))
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("variable %s: its file %s is missing; delete %s to start over",
				name, path, s.checkpointPath(cp.PlanID))
		}
		if err != nil {
			return fmt.Errorf("read variable %s: %w", name, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("variable %s in %s is not valid JSON: %v; delete %s to start over",
				name, path, err, s.checkpointPath(cp.PlanID))
		}
		cp.Variables[name] = v
	}
	cp.Results = nil
	return nil
}
