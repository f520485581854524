package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/filelock"
)

// fileStore keeps every record in one 0600 JSON file under weft's state
// directory (mode 0700), changed under a cross-process lock.
type fileStore struct {
	dir string
}

func newFileStore(dir string) *fileStore { return &fileStore{dir: dir} }

func (s *fileStore) path() string      { return filepath.Join(s.dir, "tokens.json") }
func (s *fileStore) stampPath() string { return filepath.Join(s.dir, "tokens.stamp") }

func (s *fileStore) refreshLockPath() string { return filepath.Join(s.dir, "tokens.refresh") }

func (s *fileStore) Kind() string  { return StoreFile }
func (s *fileStore) Stamp() string { return stampCacheFor(s.stampPath()).fresh() }

func (s *fileStore) Load(server string) (*Record, error) {
	all, err := s.readAll()
	if err != nil {
		return nil, err
	}
	return all[server], nil
}

func (s *fileStore) Save(rec *Record) error {
	return s.change(func(all map[string]*Record) { all[rec.Server] = rec })
}

func (s *fileStore) Delete(server string) error {
	return s.change(func(all map[string]*Record) { delete(all, server) })
}

// change applies edit to the whole file under the lock and bumps the stamp.
func (s *fileStore) change(edit func(map[string]*Record)) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := filelock.Lock(ctx, s.path())
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer unlock()
	all, err := s.readAll()
	if err != nil {
		return err
	}
	edit(all)
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := atomicfile.WriteFile(s.path(), data, 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return bumpStamp(s.stampPath())
}

func (s *fileStore) readAll() (map[string]*Record, error) {
	data, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Record{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	all := map[string]*Record{}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("token store %s is not valid JSON (%v); delete it and log in again", s.path(), err)
	}
	return all, nil
}
