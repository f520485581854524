package oauth

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/zalando/go-keyring"
)

// fakeClock is the stamp cache's clock in a test: it moves only when told.
type fakeClock struct {
	start time.Time
	moved atomic.Int64 // nanoseconds
}

func (c *fakeClock) now() time.Time          { return c.start.Add(time.Duration(c.moved.Load())) }
func (c *fakeClock) advance(d time.Duration) { c.moved.Add(int64(d)) }

// stampClock gives the stamp cache of the file store in dir a clock the
// test moves.
func stampClock(t *testing.T, dir string) *fakeClock {
	t.Helper()
	clock := &fakeClock{start: time.Now()}
	path := newFileStore(dir).stampPath()
	if _, loaded := stampCaches.LoadOrStore(path, &stampCache{path: path, now: clock.now}); loaded {
		t.Fatalf("the stamp cache of %s exists already", path)
	}
	t.Cleanup(func() { stampCaches.Delete(path) })
	return clock
}

// storeAsAnotherProcess writes the file store in dir as another weft
// process does: the files change, this process's cache does not.
func storeAsAnotherProcess(t *testing.T, dir string, recs ...*Record) {
	t.Helper()
	all := map[string]*Record{}
	for _, r := range recs {
		all[r.Server] = r
	}
	data, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.stamp"), []byte(time.Now().String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

var ghServer = &config.Server{Name: "gh", Type: config.TransportHTTP, Target: "https://mcp.example/mcp"}

// tokenOf is the access token m's handler of cfg sends now ("" for none).
func tokenOf(t *testing.T, m *Manager, cfg *config.Server) string {
	t.Helper()
	ts, err := m.Handler(cfg).TokenSource(context.Background())
	if err != nil {
		t.Fatalf("TokenSource: %v", err)
	}
	if ts == nil {
		return ""
	}
	tok, err := ts.Token()
	if err != nil {
		return ""
	}
	return tok.AccessToken
}

// TestAnotherProcessLoginSeenWithinTTL: a request does not read the token
// store's files; a login made by another process reaches the handler
// once the cached stamp is stampTTL old, or at once when the login
// watcher reads the stamp (Store.Stamp).
func TestAnotherProcessLoginSeenWithinTTL(t *testing.T) {
	rows := []struct {
		name   string
		notice func(*fakeClock, Store)
	}{
		{"after the TTL", func(c *fakeClock, _ Store) { c.advance(stampTTL) }},
		{"the watcher's read", func(_ *fakeClock, s Store) { s.Stamp() }},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := t.TempDir()
			clock := stampClock(t, dir)
			m := testManagerOver(newFileStore(dir))
			h := m.Handler(ghServer)
			if ts, err := h.TokenSource(context.Background()); ts != nil || err != nil {
				t.Fatalf("before any login: %v, %v", ts, err)
			}
			storeAsAnotherProcess(t, dir, &Record{Server: "gh", Resource: ghServer.Target, AccessToken: "at-other"})
			clock.advance(stampTTL - time.Millisecond)
			if ts, _ := h.TokenSource(context.Background()); ts != nil {
				t.Fatal("a request within the TTL read the token store again")
			}
			r.notice(clock, m.Store())
			ts, err := h.TokenSource(context.Background())
			if ts == nil || err != nil {
				t.Fatalf("the other process's login was not seen: %v, %v", ts, err)
			}
			if tok, err := ts.Token(); err != nil || tok.AccessToken != "at-other" {
				t.Errorf("token %v, %v; want the other process's", tok, err)
			}
		})
	}
}

// TestOwnProcessChangesSeenAtOnce: weft serve has several managers and
// stores over the same files (the hub's, the per-user pool's, one per
// login through a client); a login or logout through any of them reaches
// the others' handlers at once, whatever the cache's age, with either
// store kind.
func TestOwnProcessChangesSeenAtOnce(t *testing.T) {
	rows := []struct {
		name string
		open func(dir string) Store
	}{
		{"file", func(dir string) Store { return newFileStore(dir) }},
		{"keychain", func(dir string) Store {
			return &keychainStore{stamp: newFileStore(dir).stampPath(), fallback: newFileStore(dir)}
		}},
	}
	keyring.MockInit()
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			dir := t.TempDir()
			stampClock(t, dir) // never moves: only the writes can change the stamp
			serving := testManagerOver(r.open(dir))
			if got := tokenOf(t, serving, ghServer); got != "" {
				t.Fatalf("before any login: token %q", got)
			}
			login := testManagerOver(r.open(dir))
			if err := login.Store().Save(&Record{Server: "gh", Resource: ghServer.Target, AccessToken: "at-1"}); err != nil {
				t.Fatal(err)
			}
			if got := tokenOf(t, serving, ghServer); got != "at-1" {
				t.Errorf("after a login in this process: token %q, want at-1", got)
			}
			if had, _, err := login.Logout(context.Background(), ghServer); !had || err != nil {
				t.Fatalf("Logout: %v, %v", had, err)
			}
			if got := tokenOf(t, serving, ghServer); got != "" {
				t.Errorf("after a logout in this process: token %q, want none", got)
			}
		})
	}
}

// TestPerUserLoginSeenAtOnceByItsUser: a user's login reaches that user's
// handler at once, and no other user's.
func TestPerUserLoginSeenAtOnceByItsUser(t *testing.T) {
	dir := t.TempDir()
	stampClock(t, dir)
	cfg := &config.Server{Name: "gh", Type: config.TransportHTTP, Target: ghServer.Target, OAuth: &config.OAuth{PerUser: true}}
	serving := testManagerOver(newFileStore(dir))
	alice, bob := serving.AsUser("alice"), serving.AsUser("bob")
	tokenOf(t, alice, cfg) // both handlers have read the (empty) store
	tokenOf(t, bob, cfg)
	login := testManagerOver(newFileStore(dir)).AsUser("alice")
	if err := login.Store().Save(&Record{Server: UserKey("gh", "alice"), Resource: cfg.Target, AccessToken: "at-alice"}); err != nil {
		t.Fatal(err)
	}
	if got := tokenOf(t, alice, cfg); got != "at-alice" {
		t.Errorf("alice's token %q, want at-alice", got)
	}
	if got := tokenOf(t, bob, cfg); got != "" {
		t.Errorf("bob got token %q from alice's login", got)
	}
}

// BenchmarkTokenSourceNoLogin is what every request to a remote server
// without a stored login costs in the OAuth handler.
func BenchmarkTokenSourceNoLogin(b *testing.B) {
	h := NewManager(ManagerOptions{Store: newFileStore(b.TempDir())}).Handler(ghServer)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if ts, err := h.TokenSource(ctx); ts != nil || err != nil {
			b.Fatal(ts, err)
		}
	}
}

// BenchmarkTokenLoggedIn is the handler's part of a request to a remote
// server with a stored login: the token source and its token.
func BenchmarkTokenLoggedIn(b *testing.B) {
	m := NewManager(ManagerOptions{Store: newFileStore(b.TempDir())})
	if err := m.Store().Save(&Record{Server: "gh", Resource: ghServer.Target, AccessToken: "at"}); err != nil {
		b.Fatal(err)
	}
	h := m.Handler(ghServer)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ts, err := h.TokenSource(ctx)
		if err != nil || ts == nil {
			b.Fatal(ts, err)
		}
		if _, err := ts.Token(); err != nil {
			b.Fatal(err)
		}
	}
}
