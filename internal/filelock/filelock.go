// Package filelock serialises read-modify-write cycles on a file across
// processes. The lock is an advisory OS lock (flock on Unix, LockFileEx on
// Windows) on a sibling file, so the kernel releases it when its holder dies,
// even by kill -9: a crashed weft never leaves a stale lock behind.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrBusy reports a lock that another process (or another holder in this
// process) has, from TryLock.
var ErrBusy = errors.New("locked by another process")

// retryDelay is how often Lock retries a held lock. Edits of weft's files take
// milliseconds, so a short delay keeps concurrent CLI commands quick.
const retryDelay = 10 * time.Millisecond

// PathFor is the lock file that guards path: a hidden sibling, so the lock
// lives on the same file system and needs no extra directory.
func PathFor(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Lock takes the exclusive lock guarding path (see PathFor), waiting until it
// is free or ctx ends. The returned function releases it; call it once.
func Lock(ctx context.Context, path string) (unlock func(), err error) {
	fl, err := open(path)
	if err != nil {
		return nil, err
	}
	ok, err := fl.TryLockContext(ctx, retryDelay)
	if err != nil || !ok {
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { _ = fl.Unlock() }, nil
}

// TryLock takes the lock guarding path if it is free; otherwise it fails at
// once with an error wrapping ErrBusy.
func TryLock(path string) (unlock func(), err error) {
	fl, err := open(path)
	if err != nil {
		return nil, err
	}
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrBusy)
	}
	return func() { _ = fl.Unlock() }, nil
}

func open(path string) (*flock.Flock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return flock.New(PathFor(path), flock.SetPermissions(0o600)), nil
}
