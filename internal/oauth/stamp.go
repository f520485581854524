package oauth

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/internal/atomicfile"
)

// stampTTL bounds how long a cached read of the token store's stamp is
// trusted: a login or logout made by another weft process reaches this
// process's handlers within it, and sooner under weft serve, whose login
// watcher reads the stamp afresh every second (Store.Stamp) and so
// refreshes what every handler sees. Changes made in this process are seen
// at once.
const stampTTL = time.Second

// stampCaches holds one stampCache per stamp file, for the whole process:
// weft serve opens several managers and stores over the same files (the
// hub's, the per-user pool's, one per login through a client), and a
// change any of them makes must reach all of them at once.
var stampCaches sync.Map // path → *stampCache

// stampCache is the last value read from, or written to, one stamp file.
// Every request asks for the stamp (to notice logins made elsewhere); the
// cache answers it without the file system, which it reads at most once
// per stampTTL.
type stampCache struct {
	path string
	now  func() time.Time
	// mu orders reads and writes of the file with updates of cur, so that
	// cur never goes back to a value the file held before a write.
	mu  sync.Mutex
	cur atomic.Pointer[stampRead]
}

// stampRead is a stamp value and when it was read or written (with the
// monotonic clock reading that time.Now carries).
type stampRead struct {
	value string
	at    time.Time
}

// stampCacheFor returns the process's cache of the stamp file at path.
func stampCacheFor(path string) *stampCache {
	if c, ok := stampCaches.Load(path); ok {
		return c.(*stampCache)
	}
	c, _ := stampCaches.LoadOrStore(path, &stampCache{path: path, now: time.Now})
	return c.(*stampCache)
}

// get returns the stamp, from the cache while it is younger than stampTTL.
func (c *stampCache) get() string {
	if r := c.cur.Load(); r != nil && c.now().Sub(r.at) < stampTTL {
		return r.value
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.cur.Load(); r != nil && c.now().Sub(r.at) < stampTTL {
		return r.value // another caller read it meanwhile
	}
	return c.readLocked()
}

// fresh reads the stamp file now and caches what it holds.
func (c *stampCache) fresh() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readLocked()
}

func (c *stampCache) readLocked() string {
	b, _ := os.ReadFile(c.path) // missing: no login was ever stored here
	v := string(b)
	c.cur.Store(&stampRead{value: v, at: c.now()})
	return v
}

// bumpStamp writes a fresh random value to the stamp file at path and,
// once it is there, to the process's cache of it.
func bumpStamp(path string) error {
	c := stampCacheFor(path)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	v := rand.Text()
	if err := atomicfile.WriteFile(path, []byte(v), 0o600); err != nil {
		c.cur.Store(nil) // the file's state is unknown: read it next time
		return fmt.Errorf("token store: %w", err)
	}
	c.cur.Store(&stampRead{value: v, at: c.now()})
	return nil
}

// cachedStamp returns s's stamp as a request needs it: from the process's
// cache for the file and keychain stores (both keep it in a file), read
// afresh for any other store.
func cachedStamp(s Store) func() string {
	f, ok := s.(interface{ stampPath() string })
	if s == nil {
		return func() string { return "" }
	}
	if !ok {
		return s.Stamp
	}
	return stampCacheFor(f.stampPath()).get
}
