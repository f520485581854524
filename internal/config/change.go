package config

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/filelock"
)

// Errors a change of weft.toml wraps, for callers that branch on them (the
// admin API maps them to HTTP statuses).
var (
	// ErrConflict: the file no longer has the content hash the change was
	// based on (If-Match); read it again and retry.
	ErrConflict = errors.New("changed since it was read")
	// ErrServerExists: the file already defines a server of that name.
	ErrServerExists = errors.New("already exists")
	// ErrServerNotFound: the file does not define a server of that name.
	ErrServerNotFound = errors.New("not found")
)

// Hash is the content hash of a weft.toml (empty content for a missing
// file): the precondition a change names in If-Match.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Txn is one read-modify-write of the weft.toml at a path. It runs under the
// file's cross-process lock, so two processes (two `weft mcp add`, or a CLI
// and a running weft) never lose each other's edits.
type Txn struct {
	// IfMatch, when set, is the Hash the file must still have; otherwise the
	// change fails with ErrConflict and nothing happens.
	IfMatch string
	// Edit returns the new content from the current one (nil for a missing
	// file). A nil Edit changes nothing on disk: the current content is
	// loaded and applied, as after an outside edit.
	Edit func(data []byte) ([]byte, error)
	// Apply makes the validated new config live before it is written. When
	// writing then fails, the undo it returned (if any) is called, so what
	// runs never disagrees with the file. Nil: nothing to apply.
	Apply func(ctx context.Context, next *Config) (undo func(), err error)
	// AgentFile, when set, edits an agent's own file in the same
	// transaction (under its own lock, after weft.toml's): the whole
	// config is validated with its new content before anything is
	// applied or written.
	AgentFile *FileEdit
}

// FileEdit is the edit of one more file of a change.
type FileEdit struct {
	Path string
	Edit func(data []byte) ([]byte, error)
}

// TxnResult is what a change did.
type TxnResult struct {
	// Config is the validated config now in the file.
	Config *Config
	// Hash is the file's content hash after the change.
	Hash string
	// Written reports whether the file was written.
	Written bool
}

// Change runs t on the weft.toml at path: lock, read (checking IfMatch),
// edit, load and validate, apply, write atomically (keeping everything the
// edit did not touch, comments included), undo the apply if the write fails.
//
// A change without Edit only reads the file, which atomic replacement keeps
// whole, so it takes no lock: a config in a read-only directory still
// reloads.
func Change(ctx context.Context, path string, t Txn) (TxnResult, error) {
	if t.Edit != nil {
		unlock, err := filelock.Lock(ctx, path)
		if err != nil {
			return TxnResult{}, fmt.Errorf("cannot lock %s for editing: %w", path, err)
		}
		defer unlock()
	}
	data, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return TxnResult{}, fmt.Errorf("cannot read %s: %v; check the path and its permissions", path, pathErr(err))
	}
	if t.IfMatch != "" && t.IfMatch != Hash(data) {
		return TxnResult{}, fmt.Errorf("%s %w; read it again and retry", path, ErrConflict)
	}
	next := data
	if t.Edit != nil {
		if next, err = t.Edit(data); err != nil {
			return TxnResult{}, err
		}
	}
	side, err := readSide(ctx, t.AgentFile)
	if err != nil {
		return TxnResult{}, err
	}
	defer side.unlock()
	cfg, err := loadData(path, next, side.overlay())
	if err != nil {
		return TxnResult{}, err
	}
	var undo func()
	if t.Apply != nil {
		if undo, err = t.Apply(ctx, cfg); err != nil {
			return TxnResult{}, err
		}
	}
	res := TxnResult{Config: cfg, Hash: Hash(next)}
	if err := side.write(); err != nil {
		if undo != nil {
			undo()
		}
		return TxnResult{}, err
	}
	res.Written = side.changed()
	if t.Edit == nil || (exists && bytes.Equal(next, data)) {
		return res, nil
	}
	if err := writeConfig(path, next, exists); err != nil {
		if undo != nil {
			undo()
		}
		return TxnResult{}, err
	}
	res.Written = true
	return res, nil
}

// writeConfig replaces the file atomically; a new one is 0600 in a 0700
// directory.
func writeConfig(path string, data []byte, exists bool) error {
	if !exists {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("cannot create %s: %v; check the permissions of its parent", filepath.Dir(path), pathErr(err))
		}
	}
	return atomicfile.WriteFile(path, data, 0o600)
}

// editFile applies edit to the file at path under its lock, with nothing to
// make live: the file-only path of a change.
func editFile(path string, edit func([]byte) ([]byte, error)) error {
	_, err := Change(context.Background(), path, Txn{Edit: edit})
	return err
}
