package oauth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFileStoreRoundTrip(t *testing.T) {
	home := t.TempDir()
	s, err := OpenStore("auto", envOf(map[string]string{"WEFT_HOME": home, "WEFT_TOKEN_STORE": "file"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind() != StoreFile {
		t.Fatalf("WEFT_TOKEN_STORE=file gave a %s store", s.Kind())
	}
	if rec, err := s.Load("a"); err != nil || rec != nil {
		t.Fatalf("empty store: %v, %v", rec, err)
	}
	before := s.Stamp()
	rec := &Record{Server: "a", Resource: "https://a/mcp", ClientID: "c", TokenURL: "https://as/token", AccessToken: "at", RefreshToken: "rt"}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	if s.Stamp() == before {
		t.Error("Save did not change the stamp")
	}
	got, err := s.Load("a")
	if err != nil || got == nil || got.AccessToken != "at" || got.RefreshToken != "rt" {
		t.Fatalf("Load after Save = %+v, %v", got, err)
	}
	for _, f := range []string{"tokens.json", "tokens.stamp"} {
		st, err := os.Stat(filepath.Join(home, f))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", f, err)
		}
	}
	mid := s.Stamp()
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load("a"); got != nil || s.Stamp() == mid {
		t.Errorf("after Delete: %+v, stamp changed %v", got, s.Stamp() != mid)
	}
}

func TestOpenStoreKinds(t *testing.T) {
	home := t.TempDir()
	if _, err := OpenStore("vault", envOf(map[string]string{"WEFT_HOME": home})); err == nil || !strings.Contains(err.Error(), "auto, keychain or file") {
		t.Errorf("unknown kind: %v", err)
	}
	s, err := OpenStore("keychain", envOf(map[string]string{"WEFT_HOME": home, "WEFT_TOKEN_STORE": "file"}))
	if err != nil || s.Kind() != StoreFile {
		t.Errorf("WEFT_TOKEN_STORE must win over the config: %v, %v", s, err)
	}
	if _, err := StateDir(envOf(nil)); err != nil && os.Getenv("HOME") != "" {
		t.Errorf("StateDir without WEFT_HOME: %v", err)
	}
}

func TestDamagedStoreSaysWhatToDo(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "tokens.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newFileStore(home)
	if _, err := s.Load("a"); err == nil || !strings.Contains(err.Error(), "log in again") {
		t.Errorf("damaged file: %v", err)
	}
}

func TestDueForRefresh(t *testing.T) {
	now := time.Now()
	rows := []struct {
		name             string
		obtained, expiry time.Time
		want             bool
	}{
		{"no expiry", now, time.Time{}, false},
		{"an hour left", now, now.Add(time.Hour), false},
		{"under a minute left", now.Add(-time.Hour), now.Add(50 * time.Second), true},
		{"expired", now.Add(-time.Hour), now.Add(-time.Second), true},
		{"short life, fresh", now, now.Add(10 * time.Second), false},
		{"short life, last fifth", now.Add(-9 * time.Second), now.Add(time.Second), true},
	}
	for _, r := range rows {
		rec := &Record{Obtained: r.obtained, Expiry: r.expiry}
		if got := rec.dueForRefresh(now); got != r.want {
			t.Errorf("%s: dueForRefresh = %v, want %v", r.name, got, r.want)
		}
	}
}
