package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// rotate shifts File.N-1 → File.N … File → File.1 and reopens File
// empty; the oldest beyond MaxFiles is overwritten. The file is reopened
// even when a rename fails, so that logging goes on. Callers have the
// writing turn (write.go).
func (l *Log) rotate() error {
	var closeErr error
	if err := l.f.Close(); err != nil {
		closeErr = fmt.Errorf("audit log: close before rotation: %w", err)
	}
	l.f = nil
	shiftErr := l.shift()
	if err := l.open(); err != nil {
		return err
	}
	return errors.Join(closeErr, shiftErr)
}

func (l *Log) shift() error {
	base := l.opts.File
	for i := l.opts.MaxFiles - 1; i >= 1; i-- {
		from, to := fmt.Sprintf("%s.%d", base, i), fmt.Sprintf("%s.%d", base, i+1)
		if err := os.Rename(from, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("audit log: rotate %s: %w", from, err)
		}
	}
	if err := os.Rename(base, base+".1"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit log: rotate %s: %w", base, err)
	}
	return nil
}
