package plan

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrBusy reports a plan that another run holds.
var ErrBusy = errors.New("plan is already running")

// Lock claims the right to run the plan, across processes: two runs of one
// plan would overwrite each other's checkpoint. The lock is an flock on
// <id>.lock, so the kernel releases it when the holder dies, even by kill -9.
// Call the returned function to release it.
func (s *Store) Lock(id string) (unlock func(), err error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the plans directory %s: %w", s.Dir, err)
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, id+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock plan %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s; wait for that run to end", ErrBusy, id)
		}
		return nil, fmt.Errorf("lock plan %s: %w", id, err)
	}
	return func() { _ = f.Close() }, nil
}
