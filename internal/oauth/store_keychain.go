package oauth

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// keychainService is the service name weft's entries carry in the OS
// keychain (macOS Keychain, Windows Credential Manager, Secret Service).
const keychainService = "weft"

// keychainStore keeps one keychain entry per server. A record too big for
// the keychain (Windows limits entries to 2.5 KB) goes to the fallback file
// when there is one.
type keychainStore struct {
	stamp    string
	fallback *fileStore
}

// keychainAvailable probes the keychain with a read that is expected to
// find nothing: an error other than "not found" means there is none.
func keychainAvailable() bool {
	_, err := keyring.Get(keychainService, "weft-probe")
	return err == nil || errors.Is(err, keyring.ErrNotFound)
}

func (s *keychainStore) refreshLockPath() string { return s.stamp + ".refresh" }

func (s *keychainStore) Kind() string  { return StoreKeychain }
func (s *keychainStore) Stamp() string { return stampCacheFor(s.stamp).fresh() }

func (s *keychainStore) stampPath() string { return s.stamp }

func (s *keychainStore) Load(server string) (*Record, error) {
	data, err := keyring.Get(keychainService, server)
	if errors.Is(err, keyring.ErrNotFound) {
		if s.fallback != nil {
			return s.fallback.Load(server)
		}
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keychain: %w", err)
	}
	var rec Record
	if err := json.Unmarshal([]byte(data), &rec); err != nil {
		return nil, fmt.Errorf("keychain entry for %s is damaged; run `weft mcp login %s`", server, server)
	}
	return &rec, nil
}

func (s *keychainStore) Save(rec *Record) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("keychain: %w", err)
	}
	err = keyring.Set(keychainService, rec.Server, string(data))
	if errors.Is(err, keyring.ErrSetDataTooBig) && s.fallback != nil {
		return s.fallback.Save(rec)
	}
	if err != nil {
		return fmt.Errorf("keychain: %w", err)
	}
	if err := s.index(rec.Server, true); err != nil {
		return err
	}
	return bumpStamp(s.stamp)
}

func (s *keychainStore) Delete(server string) error {
	err := keyring.Delete(keychainService, server)
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keychain: %w", err)
	}
	if err := s.index(server, false); err != nil {
		return err
	}
	if s.fallback != nil {
		return s.fallback.Delete(server)
	}
	return bumpStamp(s.stamp)
}
