package daemon

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
)

// Edit is one change of the servers weft runs, made to weft.toml and the
// hub together by Change.
type Edit struct {
	// File returns weft.toml's new content from its current one (nil for a
	// missing file). Nil applies the file as it is: a reload after an
	// outside edit.
	File func(data []byte) ([]byte, error)
	// Verify names servers that must connect for the change to stand: if
	// one fails, the hub is put back as it was and nothing is written.
	// Other servers that fail stay listed with their error and are retried.
	Verify []string
	// IfMatch, when set, is the content hash (config.Hash) weft.toml must
	// still have; otherwise the change fails with config.ErrConflict.
	IfMatch string
	// Source names who asked, for the audit log ("dashboard", …); empty:
	// "reload" for a reload, else "edit".
	Source string
	// AgentFile, when set, edits an agent's own file in the same change
	// (mcp_manage as an agent whose config is a file of its own).
	AgentFile *config.FileEdit
}

// source is what the audit log calls the origin of e.
func (e Edit) source() string {
	switch {
	case e.Source != "":
		return e.Source
	case e.File == nil && e.AgentFile == nil:
		return "reload"
	}
	return "edit"
}

// Result says what a change did.
type Result struct {
	hub.ApplyResult
	// Hash is weft.toml's content hash after the change.
	Hash string
	// Written reports whether weft.toml was written.
	Written bool
}

// Change is the one path every change of the running servers takes — the
// file watcher, mcp_manage, the admin API and `weft mcp add/remove` against
// a running weft. Serialised in this process and, for the file, under its
// cross-process lock, it reads weft.toml (checking IfMatch), edits it,
// validates the result, connects or swaps servers in the hub, writes the
// file atomically, and undoes the hub change if writing fails. Removed
// servers are drained only once the file no longer names them, so a failed
// write never leaves a server stopped that the file still lists.
func (d *Daemon) Change(ctx context.Context, e Edit) (res Result, err error) {
	began := time.Now()
	var applied *config.Config
	defer func() { d.obs.changed(e.source(), began, applied, res.ApplyResult, err) }()
	d.changeMu.Lock()
	defer d.changeMu.Unlock()
	var removals []string
	tr, err := config.Change(ctx, d.path, config.Txn{IfMatch: e.IfMatch, Edit: e.File, AgentFile: e.AgentFile,
		Apply: func(ctx context.Context, next *config.Config) (func(), error) {
			p := d.diff(next)
			res.ApplyResult = p.result()
			if e.File != nil || e.AgentFile != nil {
				removals = p.remove
				return d.connectAsOne(ctx, p, e.Verify, res.Failed)
			}
			// A reload writes nothing, so nothing can fail after it: drain
			// removed servers while the new ones connect, as before.
			var wg sync.WaitGroup
			wg.Go(func() { parallel(p.remove, func(name string) { _ = d.hub.Remove(context.WithoutCancel(ctx), name) }) })
			undo, err := d.connectAsOne(ctx, p, e.Verify, res.Failed)
			wg.Wait()
			return undo, err
		}})
	if err != nil {
		return Result{}, err
	}
	parallel(removals, func(name string) { _ = d.hub.Remove(context.WithoutCancel(ctx), name) })
	d.hub.Refresh()
	d.setConfig(tr.Config, tr.Hash)
	applied = tr.Config
	res.Hash, res.Written = tr.Hash, tr.Written
	if tr.Written {
		d.logger.Info("config changed", "added", res.Added, "removed", res.Removed, "changed", res.Changed)
	}
	return res, nil
}

// connectAsOne is connect with the hub's listeners held, so that the servers
// a change adds or swaps reach clients as one catalog change. Drains happen
// outside the hold: a slow drain must not delay the new servers' tools.
func (d *Daemon) connectAsOne(ctx context.Context, p change, verify []string, failed map[string]error) (func(), error) {
	release := d.hub.Hold()
	defer release()
	return d.connect(ctx, p, verify, failed)
}

// change is what bringing the hub in line with a config takes.
type change struct {
	add, swap []*config.Server
	old       map[string]*config.Server // the running config of each swapped server
	remove    []string
	unchanged []string
}

func (c change) result() hub.ApplyResult {
	r := hub.ApplyResult{Removed: c.remove, Unchanged: c.unchanged, Failed: map[string]error{}}
	for _, s := range c.add {
		r.Added = append(r.Added, s.Name)
	}
	for _, s := range c.swap {
		r.Changed = append(r.Changed, s.Name)
	}
	return r
}

// diff compares next with what the hub runs: an enabled server not running
// is added, one whose connection settings differ is swapped, a running one
// that next no longer enables is removed.
func (d *Daemon) diff(next *config.Config) change {
	c := change{old: map[string]*config.Server{}}
	running := map[string]bool{}
	servers := next.HubServers()
	for _, name := range d.hub.Names() {
		running[name] = true
		cur, _ := d.hub.Config(name)
		want, ok := servers[name]
		switch {
		case !ok || !want.IsEnabled():
			c.remove = append(c.remove, name)
		case cur.Fingerprint() != want.Fingerprint():
			c.swap = append(c.swap, want)
			c.old[name] = cur
		default:
			c.unchanged = append(c.unchanged, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if s := servers[name]; s.IsEnabled() && !running[name] {
			c.add = append(c.add, s)
		}
	}
	sort.Strings(c.remove)
	return c
}

// connect adds and swaps what c needs, in parallel, recording failures in
// failed. When a server in verify fails, everything is undone and the error
// says why; otherwise the returned undo puts the hub back as it was.
func (d *Daemon) connect(ctx context.Context, c change, verify []string, failed map[string]error) (func(), error) {
	var mu sync.Mutex
	fail := func(name string, err error) {
		mu.Lock()
		failed[name] = err
		mu.Unlock()
	}
	all := append(append([]*config.Server{}, c.add...), c.swap...)
	parallelServers(all, func(s *config.Server) {
		var err error
		if c.old[s.Name] != nil {
			_, err = d.hub.Swap(ctx, s)
		} else {
			_, err = d.hub.Add(ctx, s)
		}
		if err != nil {
			fail(s.Name, err)
		}
	})
	undo := func() {
		bg := context.WithoutCancel(ctx)
		parallelServers(all, func(s *config.Server) {
			if old := c.old[s.Name]; old != nil {
				_, _ = d.hub.Swap(bg, old)
			} else {
				_ = d.hub.Remove(bg, s.Name)
			}
		})
	}
	for _, name := range verify {
		if err := failed[name]; err != nil {
			undo()
			return nil, &ConnectError{Server: name, Err: err}
		}
	}
	return undo, nil
}

// ConnectError reports a server a change needed that could not connect;
// the change was undone and nothing was written.
type ConnectError struct {
	Server string
	Err    error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("could not connect to %s (%v); nothing was written", e.Server, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

func parallel(names []string, f func(string)) {
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Go(func() { f(n) })
	}
	wg.Wait()
}

func parallelServers(servers []*config.Server, f func(*config.Server)) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { f(s) })
	}
	wg.Wait()
}
