package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/weft-dev/weft/internal/filelock"
)

// sideFile is the state of a change's second file (an agent's own file).
type sideFile struct {
	path         string
	data, next   []byte
	exists       bool
	unlockFile   func()
	hasAgentFile bool
}

// readSide locks, reads and edits a change's agent file; the zero value
// stands for none.
func readSide(ctx context.Context, e *FileEdit) (*sideFile, error) {
	s := &sideFile{}
	if e == nil {
		return s, nil
	}
	unlock, err := filelock.Lock(ctx, e.Path)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s for editing: %w", e.Path, err)
	}
	s.path, s.unlockFile, s.hasAgentFile = e.Path, unlock, true
	s.data, err = os.ReadFile(e.Path)
	s.exists = err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		unlock()
		return nil, fmt.Errorf("cannot read %s: %v; check the path and its permissions", e.Path, pathErr(err))
	}
	if s.next, err = e.Edit(s.data); err != nil {
		unlock()
		return nil, err
	}
	return s, nil
}

func (s *sideFile) unlock() {
	if s.unlockFile != nil {
		s.unlockFile()
	}
}

// overlay is the agent file's new content, for validating the whole config.
func (s *sideFile) overlay() map[string][]byte {
	if !s.hasAgentFile {
		return nil
	}
	return map[string][]byte{s.path: s.next}
}

func (s *sideFile) changed() bool {
	return s.hasAgentFile && !(s.exists && bytes.Equal(s.data, s.next))
}

// write replaces the agent file atomically when the edit changed it.
func (s *sideFile) write() error {
	if !s.changed() {
		return nil
	}
	return writeConfig(s.path, s.next, s.exists)
}
