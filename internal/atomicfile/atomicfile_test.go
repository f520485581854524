package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "weft.toml")
	if err := WriteFile(p, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "b" {
		t.Fatalf("content %q, want b", got)
	}
	if runtime.GOOS != "windows" {
		if info, _ := os.Stat(p); info.Mode().Perm() != 0o640 {
			t.Fatalf("mode %v, want the existing 0640 kept", info.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the file", len(entries))
	}
}

func TestWriteFileNewFileMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes")
	}
	p := filepath.Join(t.TempDir(), "state.json")
	if err := WriteFile(p, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", info.Mode().Perm())
	}
}

func TestWriteFileRefusesReadOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "weft.toml")
	if err := os.WriteFile(p, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(p, []byte("new"), 0o600)
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("err = %v, want ErrReadOnly", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "keep" {
		t.Fatalf("read-only file changed to %q", got)
	}
}

func TestWriteFileRemovesStaleTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "weft.toml")
	stale := filepath.Join(dir, tempPrefix+"weft.toml-123")
	fresh := filepath.Join(dir, tempPrefix+"weft.toml-456")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file still there (err %v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a fresh temp file (another writer's) was removed: %v", err)
	}
}

func TestWriteFileFollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.toml")
	link := filepath.Join(dir, "weft.toml")
	if err := os.WriteFile(real, []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("b"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(real); string(got) != "b" {
		t.Fatalf("target content %q, want b", got)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
}
