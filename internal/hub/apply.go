package hub

import (
	"context"
	"sort"
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
// swapped (new connection first, old one drained, see Swap), unchanged ones
// left alone. Everything runs in parallel; a server that fails to connect
// does not stop the others.
func (h *Hub) Apply(ctx context.Context, servers map[string]*config.Server) ApplyResult {
	res := ApplyResult{Failed: map[string]error{}}
	want := map[string]*config.Server{}
	for name, s := range servers {
		if s.IsEnabled() {
			want[name] = s
		}
	}
	var toAdd, toSwap, toRemove []string
	running := map[string]bool{}
	for _, name := range h.Names() {
		running[name] = true
		cur, _ := h.Config(name)
		next, ok := want[name]
		switch {
		case !ok:
			toRemove = append(toRemove, name)
		case cur.Fingerprint() != next.Fingerprint():
			toSwap = append(toSwap, name)
		default:
			res.Unchanged = append(res.Unchanged, name)
		}
	}
	for name := range want {
		if !running[name] {
			toAdd = append(toAdd, name)
		}
	}
	sort.Strings(toAdd)
	res.Added, res.Removed, res.Changed = toAdd, toRemove, toSwap
	var mu sync.Mutex
	fail := func(name string, err error) {
		mu.Lock()
		res.Failed[name] = err
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		h.parallel(toRemove, func(name string) { _ = h.Remove(ctx, name) })
	}()
	go func() {
		defer wg.Done()
		h.parallel(toSwap, func(name string) {
			if _, err := h.Swap(ctx, want[name]); err != nil {
				fail(name, err)
			}
		})
	}()
	go func() {
		defer wg.Done()
		h.parallel(toAdd, func(name string) {
			if _, err := h.Add(ctx, want[name]); err != nil {
				fail(name, err)
			}
		})
	}()
	wg.Wait()
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
