package hub

import (
	"context"
	"sync"

	"github.com/weft-dev/weft/internal/config"
)

// ApplyResult says what Apply did.
type ApplyResult struct {
	Added, Removed, Changed, Unchanged []string
	// Failed maps a server that could not connect to its error.
	Failed map[string]error
}

// Apply makes the running set of servers match cfg: new servers are added,
// removed ones drained, changed ones (any connection-relevant field differs)
// drained and re-added, unchanged ones left alone. Connections are made in
// parallel; a server that fails to connect does not stop the others.
func (h *Hub) Apply(ctx context.Context, servers map[string]*config.Server) ApplyResult {
	res := ApplyResult{Failed: map[string]error{}}
	want := map[string]*config.Server{}
	for name, s := range servers {
		if s.IsEnabled() {
			want[name] = s
		}
	}
	var toAdd []*config.Server
	var toRemove []string
	for _, name := range h.Names() {
		cur, _ := h.Config(name)
		next, ok := want[name]
		switch {
		case !ok:
			toRemove = append(toRemove, name)
			res.Removed = append(res.Removed, name)
		case cur.Fingerprint() != next.Fingerprint():
			toRemove = append(toRemove, name)
			toAdd = append(toAdd, next)
			res.Changed = append(res.Changed, name)
		default:
			res.Unchanged = append(res.Unchanged, name)
		}
		delete(want, name)
	}
	for _, s := range want {
		toAdd = append(toAdd, s)
		res.Added = append(res.Added, s.Name)
	}
	var mu sync.Mutex
	h.parallel(toRemove, func(name string) {
		_ = h.Remove(ctx, name)
	})
	adds := make([]string, len(toAdd))
	byName := map[string]*config.Server{}
	for i, s := range toAdd {
		adds[i] = s.Name
		byName[s.Name] = s
	}
	h.parallel(adds, func(name string) {
		if _, err := h.Add(ctx, byName[name]); err != nil {
			mu.Lock()
			res.Failed[name] = err
			mu.Unlock()
		}
	})
	return res
}

func (h *Hub) parallel(names []string, f func(string)) {
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(n)
		}()
	}
	wg.Wait()
}
