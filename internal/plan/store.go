package plan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/filelock"
)

// ErrNotFound reports a plan id the store does not hold.
var ErrNotFound = errors.New("no such plan")

// checkpointSuffix names a plan's run state beside it: <id>.run.json.
const checkpointSuffix = ".run.json"

// Store keeps plans as <id>.json files in Dir, each run's checkpoint beside
// its plan. Files are 0600 and the directory 0700; every write replaces the
// file atomically (temporary file, then rename), so a reader — or a resume
// after kill -9 — sees either the old or the new content, never a torn one.
type Store struct {
	Dir string
	// Sync makes every write fsync the file before the rename, so that a
	// checkpoint also survives a power loss, not just a killed process.
	Sync bool
	// wrote, when set, is told the size of every file written (tests).
	wrote func(path string, n int)
}

// DefaultDir is where plans live unless configured: $WEFT_PLANS_DIR, else
// ~/.weft/plans.
func DefaultDir() (string, error) {
	if d := os.Getenv("WEFT_PLANS_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the plans directory: %w (set WEFT_PLANS_DIR)", err)
	}
	return filepath.Join(home, ".weft", "plans"), nil
}

func (s *Store) planPath(id string) string { return filepath.Join(s.Dir, id+".json") }

func (s *Store) checkpointPath(id string) string {
	return filepath.Join(s.Dir, id+checkpointSuffix)
}

// Save writes the plan as <id>.json.
func (s *Store) Save(p *Plan) error {
	if !ValidID(p.ID) {
		return fmt.Errorf("plan id %q may hold only letters, digits, _ and -; rename it", p.ID)
	}
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	return s.write(s.planPath(p.ID), b)
}

// Load reads the plan with the given id.
func (s *Store) Load(id string) (*Plan, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%w %q: ids hold only letters, digits, _ and -; `weft plan list` shows them", ErrNotFound, id)
	}
	b, err := os.ReadFile(s.planPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q in %s; `weft plan list` shows the plans", ErrNotFound, id, s.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("read plan %s: %w", id, err)
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", id, err)
	}
	return p, nil
}

// List returns every stored plan, oldest first. A file that does not parse
// is reported through bad and skipped.
func (s *Store) List() (plans []*Plan, bad map[string]error, err error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list plans in %s: %w", s.Dir, err)
	}
	bad = map[string]error{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, checkpointSuffix) {
			continue
		}
		p, err := s.Load(strings.TrimSuffix(name, ".json"))
		if err != nil {
			bad[name] = err
			continue
		}
		plans = append(plans, p)
	}
	sort.SliceStable(plans, func(i, j int) bool {
		if !plans[i].CreatedAt.Equal(plans[j].CreatedAt) {
			return plans[i].CreatedAt.Before(plans[j].CreatedAt)
		}
		return plans[i].ID < plans[j].ID
	})
	return plans, bad, nil
}

// Delete removes the plan and its checkpoint.
func (s *Store) Delete(id string) error {
	if _, err := s.Load(id); err != nil && errors.Is(err, ErrNotFound) {
		return err
	}
	if err := os.Remove(s.planPath(id)); err != nil {
		return fmt.Errorf("delete plan %s: %w", id, err)
	}
	for _, p := range []string{s.checkpointPath(id), filelock.PathFor(s.lockTarget(id)), s.resultsDir(id)} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("delete the run state of plan %s: %w", id, err)
		}
	}
	return nil
}

// SaveCheckpoint writes a run's state beside its plan, every variable
// included. A run saves through Checkpointer instead, which writes each
// variable once.
func (s *Store) SaveCheckpoint(cp *Checkpoint) error {
	return (&checkpointWriter{s: s}).save(cp)
}

// LoadCheckpoint reads the state of the plan's last run; ok is false when
// the plan never ran.
func (s *Store) LoadCheckpoint(id string) (cp *Checkpoint, ok bool, err error) {
	b, err := os.ReadFile(s.checkpointPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read the checkpoint of plan %s: %w", id, err)
	}
	cp, err = ParseCheckpoint(b)
	if err != nil {
		return nil, false, fmt.Errorf("checkpoint of plan %s: %w", id, err)
	}
	if err := s.loadResults(cp); err != nil {
		return nil, false, fmt.Errorf("checkpoint of plan %s: %w", id, err)
	}
	return cp, true, nil
}

// Checkpointer returns a function that saves one run's checkpoints into the
// store, for Options.Checkpoint. Each variable is written to its own file
// once, so a step costs the size of its result, not of the whole state.
func (s *Store) Checkpointer() func(*Checkpoint) error {
	return (&checkpointWriter{s: s}).save
}

// write replaces path with data atomically: a reader, or a run killed at any
// moment, sees the old file or the new one. The fsyncs are made only with
// Sync, since a checkpoint is rewritten after every step.
func (s *Store) write(path string, data []byte) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create the plans directory %s: %w", s.Dir, err)
	}
	if s.wrote != nil {
		s.wrote(path, len(data))
	}
	return atomicfile.WriteFileWith(path, data, 0o600, atomicfile.Options{NoSync: !s.Sync})
}
