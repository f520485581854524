package upstream

import (
	"crypto/sha256"
	"sync"
)

// schemaVerdicts remembers validSchema's answer for each raw schema, across
// every upstream of the process. Checking a schema decodes and resolves it
// (about 100 µs for a small one); the servers of one start often run the
// same program, or one SDK's, and list the same schemas, so a hundred of them
// need one check where each would otherwise make its own. The answer depends
// on the bytes alone (remote references are never fetched), so a remembered
// one is the answer a fresh check would give.
var schemaVerdicts = verdictCache{max: maxVerdicts}

// maxVerdicts bounds the remembered answers: past it the cache starts over,
// so a stream of distinct schemas (a server that changes them on every
// list) never grows it without limit.
const maxVerdicts = 4096

// verdictKey identifies a schema's bytes and whether it must be an object.
type verdictKey [sha256.Size]byte

// verdictCache maps a schema to validSchema's answer; safe for concurrent use.
type verdictCache struct {
	mu  sync.Mutex
	max int
	m   map[verdictKey]error
}

// keyOf is the key of raw checked as an input schema (object) or not.
func keyOf(raw []byte, object bool) verdictKey {
	h := sha256.New()
	if object {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	h.Write(raw)
	var k verdictKey
	h.Sum(k[:0])
	return k
}

// check returns the remembered answer for k, or calls f and remembers its.
// Two callers may check the same new schema at once; both get its answer.
func (c *verdictCache) check(k verdictKey, f func() error) error {
	c.mu.Lock()
	err, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return err
	}
	err = f()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[verdictKey]error)
	}
	c.m[k] = err
	c.mu.Unlock()
	return err
}
