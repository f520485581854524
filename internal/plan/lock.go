package plan

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/weft-dev/weft/internal/filelock"
)

// ErrBusy reports a plan that another run holds.
var ErrBusy = errors.New("plan is already running")

// Lock claims the right to run the plan, across processes: two runs of one
// plan would overwrite each other's checkpoint. The lock is an OS file lock
// (see internal/filelock), so it is released when the holder dies, even by
// kill -9. Call the returned function to release it.
func (s *Store) Lock(id string) (unlock func(), err error) {
	unlock, err = filelock.TryLock(s.lockTarget(id))
	if errors.Is(err, filelock.ErrBusy) {
		return nil, fmt.Errorf("%w: %s; wait for that run to end", ErrBusy, id)
	}
	if err != nil {
		return nil, fmt.Errorf("lock plan %s: %w", id, err)
	}
	return unlock, nil
}

// lockTarget is the path whose filelock guards runs of plan id; the lock
// file itself is filelock.PathFor of it.
func (s *Store) lockTarget(id string) string { return filepath.Join(s.Dir, id+".run") }
