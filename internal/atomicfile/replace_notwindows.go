//go:build !windows

package atomicfile

import "os"

// replace renames tmp over target; on POSIX a rename is atomic.
func replace(tmp, target string) error { return os.Rename(tmp, target) }

// syncDir makes the rename durable: the directory entry itself is synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
