// Package atomicfile writes files so that a reader, or a process killed in the
// middle of the write, sees either the old content or the new, never a torn
// mix: the data goes to a temporary file in the same directory, is synced, and
// is renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrReadOnly reports a target file that has no write permission. The caller
// made it read-only on purpose, so replacing it by rename (which the directory
// would allow) is refused.
var ErrReadOnly = errors.New("file is read-only")

// tempPrefix marks weft's temporary files, so that a leftover from a killed
// writer can be recognised and removed by the next writer.
const tempPrefix = ".weft-tmp-"

// Options tune WriteFileWith.
type Options struct {
	// NoSync skips the fsyncs. The replacement stays atomic for readers and
	// for a killed process (the rename is), but a power loss may undo it:
	// for files rewritten often whose loss costs only a redo.
	NoSync bool
}

// WriteFile replaces path with data. perm applies to a new file; an existing
// file keeps its permission bits. A symbolic link at path is followed and the
// file it points to is replaced. An existing read-only file is not replaced:
// the error wraps ErrReadOnly.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return WriteFileWith(path, data, perm, Options{})
}

// WriteFileWith is WriteFile with options.
func WriteFileWith(path string, data []byte, perm os.FileMode, o Options) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	if info, err := os.Stat(target); err == nil {
		if info.Mode().Perm()&0o200 == 0 {
			return fmt.Errorf("%s: %w; make it writable (chmod u+w) to let weft change it", path, ErrReadOnly)
		}
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(target)
	removeStale(dir, filepath.Base(target))
	f, err := os.CreateTemp(dir, tempPrefix+filepath.Base(target)+"-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %v; check that its directory exists and is writable", path, bare(err))
	}
	tmp := f.Name()
	if err := writeFile(f, data, perm, !o.NoSync); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cannot write %s: %v; check free space and permissions", path, bare(err))
	}
	if err := replace(tmp, target); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("cannot replace %s: %v; check the permissions of its directory", path, bare(err))
	}
	if !o.NoSync {
		syncDir(dir)
	}
	return nil
}

func writeFile(f *os.File, data []byte, perm os.FileMode, sync bool) error {
	_, err := f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeStale deletes temporary files a killed writer left beside base. Only
// files older than a minute are removed, so a concurrent writer's temp file
// (which holds the config lock anyway) is never touched.
func removeStale(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, tempPrefix+globEscape(base)+"-*"))
	for _, m := range matches {
		if info, err := os.Stat(m); err == nil && staleAge(info) {
			_ = os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// bare drops the path an *fs.PathError repeats, since the caller names it.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
