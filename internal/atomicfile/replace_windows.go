//go:build windows

package atomicfile

import "os"

// replace renames tmp over target. Go's os.Rename uses MoveFileEx with
// MOVEFILE_REPLACE_EXISTING on Windows, which replaces the file in one step.
func replace(tmp, target string) error { return os.Rename(tmp, target) }

// syncDir is a no-op: Windows cannot open a directory for syncing, and NTFS
// journals the rename itself.
func syncDir(string) {}
