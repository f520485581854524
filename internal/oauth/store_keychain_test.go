package oauth

import (
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// TestKeychainStore runs the keychain store against go-keyring's in-memory
// keychain: records round-trip, every change bumps the stamp file, and a
// record the keychain refuses as too big goes to the fallback file.
func TestKeychainStore(t *testing.T) {
	keyring.MockInit()
	dir := t.TempDir()
	file := newFileStore(dir)
	s := &keychainStore{stamp: file.stampPath(), fallback: file}
	rec := &Record{Server: "gh", ClientID: "c", AccessToken: "at", RefreshToken: "rt"}
	before := s.Stamp()
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	if s.Stamp() == before {
		t.Error("Save did not bump the stamp")
	}
	got, err := s.Load("gh")
	if err != nil || got == nil || got.RefreshToken != "rt" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
	if fromFile, _ := file.Load("gh"); fromFile != nil {
		t.Error("a record that fits the keychain was written to the file too")
	}
	if err := s.Delete("gh"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("gh"); got != nil {
		t.Errorf("after Delete: %+v", got)
	}

	keyring.MockInitWithError(keyring.ErrSetDataTooBig)
	big := &Record{Server: "big", AccessToken: strings.Repeat("x", 4096)}
	if err := s.Save(big); err != nil {
		t.Fatalf("a record too big for the keychain: %v", err)
	}
	if fromFile, _ := file.Load("big"); fromFile == nil {
		t.Error("the record too big for the keychain did not go to the fallback file")
	}
}
