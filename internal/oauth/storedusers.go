package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/filelock"
)

// keyLister is a store that can list the keys it holds; both of weft's
// stores are, so that status can name the users with a stored login.
type keyLister interface {
	keys() ([]string, error)
}

// StoredUsers are, per server, the users with a record of their own in the
// token store: Logins have a token (oauth.per_user), Secrets have
// environment values (per_user stdio servers). Names only, sorted.
type StoredUsers struct {
	Logins  map[string][]string
	Secrets map[string][]string
}

// StoredUsers lists the users who have logged in to, or stored secrets for,
// each per-user server, reading the store once.
func (m *Manager) StoredUsers() (StoredUsers, error) {
	out := StoredUsers{Logins: map[string][]string{}, Secrets: map[string][]string{}}
	l, ok := m.store.(keyLister)
	if !ok {
		return out, nil
	}
	keys, err := l.keys()
	if err != nil {
		return out, err
	}
	for _, key := range keys {
		server, user, ok := strings.Cut(key, "@user:")
		if !ok || user == "" {
			continue
		}
		rec, err := m.store.Load(key)
		if err != nil || rec == nil {
			continue
		}
		if rec.AccessToken != "" || rec.RefreshToken != "" {
			out.Logins[server] = append(out.Logins[server], user)
		}
		if len(rec.Env) > 0 {
			out.Secrets[server] = append(out.Secrets[server], user)
		}
	}
	for _, users := range out.Logins {
		slices.Sort(users)
	}
	for _, users := range out.Secrets {
		slices.Sort(users)
	}
	return out, nil
}

func (s *fileStore) keys() ([]string, error) {
	all, err := s.readAll()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(all))
	for k := range all {
		out = append(out, k)
	}
	return out, nil
}

// The OS keychains have no portable listing, so the keychain store keeps
// the keys it saved (names only, never values) in a 0600 index file beside
// its stamp.
func (s *keychainStore) indexPath() string {
	return filepath.Join(filepath.Dir(s.stamp), "keychain-keys.json")
}

func (s *keychainStore) keys() ([]string, error) {
	idx, err := readIndex(s.indexPath())
	if err != nil {
		return nil, err
	}
	if s.fallback != nil {
		more, err := s.fallback.keys()
		if err != nil {
			return nil, err
		}
		idx = append(idx, more...)
	}
	slices.Sort(idx)
	return slices.Compact(idx), nil
}

// index adds key to the index (add) or takes it out.
func (s *keychainStore) index(key string, add bool) error {
	path := s.indexPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	unlock, err := filelock.Lock(ctx, path)
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer unlock()
	idx, err := readIndex(path)
	if err != nil {
		return err
	}
	has := slices.Contains(idx, key)
	switch {
	case add && !has:
		idx = append(idx, key)
	case !add && has:
		idx = slices.DeleteFunc(idx, func(k string) bool { return k == key })
	default:
		return nil
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}

func readIndex(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	var idx []string
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("token store index %s is not valid JSON (%v); delete it", path, err)
	}
	return idx, nil
}
