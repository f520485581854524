package hub

import (
	"context"
	"sync"
)

// Remove drains a server and removes it: it is marked draining and
// new calls are refused at once; calls in flight finish, up to the drain
// timeout, after which it is closed with a warning naming the count; the
// session and its process group end; its items leave the catalog and
// clients are told. The name may be reused at once by a new server.
func (h *Hub) Remove(ctx context.Context, name string) error {
	s, err := h.lookup(name)
	if err != nil {
		return err
	}
	gens, err := s.startDrain()
	if err != nil {
		return serverError(name, err)
	}
	h.mu.Lock()
	if h.servers[name] == s {
		delete(h.servers, name)
	}
	h.draining[s] = true
	h.mu.Unlock()
	h.serverChanged(s, false)
	h.rebuild() // shows draining; tools stay until closed (calls get "server draining")

	h.drainAndClose(ctx, s, gens)

	h.mu.Lock()
	delete(h.draining, s)
	h.mu.Unlock()
	if h.opts.Observer != nil {
		h.opts.Observer.ServerChanged(ServerEvent{Name: name, Status: StatusRemoved})
	}
	h.rebuild()
	h.logger.Info("upstream removed", "server", name)
	return nil
}

// Close removes every server, draining each for at most ctx's lifetime, and
// waits for background work (reconnects, old connections draining).
func (h *Hub) Close(ctx context.Context) {
	h.mu.Lock()
	if !h.closed {
		close(h.stopLogins)
	}
	h.closed = true
	names := h.sortedNames()
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = h.Remove(ctx, n)
		}()
	}
	wg.Wait()
	h.bg.Wait()
}
