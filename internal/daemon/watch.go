package daemon

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/weft-dev/weft/internal/policy"
)

// reloadDebounce turns a burst of file events into one reload.
const reloadDebounce = 500 * time.Millisecond

// startWatcher applies outside edits of the config until the returned stop
// func is called; stop waits for the watcher to end.
func (d *Daemon) startWatcher(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.watchConfig(ctx)
	}()
	return func() { cancel(); <-done }
}

// watchConfig watches the config file's directory (editors save by rename)
// and reloads after each debounced burst of changes. A file that fails to
// load changes nothing.
func (d *Daemon) watchConfig(ctx context.Context) {
	if d.path == "" {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		d.logger.Warn("config reload disabled", "err", err)
		return
	}
	defer w.Close()
	dir := filepath.Dir(d.path)
	if err := w.Add(dir); err != nil {
		d.logger.Warn("config reload disabled: cannot watch the config directory", "dir", dir, "err", err)
		return
	}
	agentsDir := d.Config().AgentsDirectory()
	watchAgents(w, agentsDir)
	edited, pinsSaved := false, false // what the events since the last reload touched
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			switch {
			case d.configEvent(ev) || agentEvent(w, agentsDir, ev):
				edited = true
			case filepath.Base(ev.Name) == policy.PinsFileName:
				pinsSaved = true
			default:
				continue
			}
			timer.Reset(reloadDebounce)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			d.logger.Warn("config watch", "err", err)
		case <-timer.C:
			// The pins file this weft saved itself needs no reload: its pins
			// are in memory, and a save merges what others wrote. Checked
			// now, not at the event, which comes before the save ends.
			own := pinsSaved && !edited && d.pins.OwnWrite()
			edited, pinsSaved = false, false
			if own {
				continue
			}
			d.Reload(ctx)
			if now := d.Config().AgentsDirectory(); followAgents(w, agentsDir, now, dir) {
				agentsDir = now
				timer.Reset(reloadDebounce)
			}
		}
	}
}

// configEvent reports whether ev, in the config's directory, is an edit of
// the config or of .mcp.json.
func (d *Daemon) configEvent(ev fsnotify.Event) bool {
	base := filepath.Base(ev.Name)
	return base == filepath.Base(d.path) || base == ".mcp.json"
}

// Reload applies the config file as it is now (after an outside edit)
// through the change path; a file that fails to load changes nothing.
func (d *Daemon) Reload(ctx context.Context) {
	if err := d.pins.Reload(); err != nil {
		d.logger.Warn("tool pins not reloaded", "err", err)
	}
	res, err := d.Change(ctx, Edit{})
	if err != nil {
		d.logger.Error("config not reloaded; the running servers are unchanged", "err", err)
		return
	}
	d.logger.Info("config reloaded", "added", res.Added, "removed", res.Removed, "changed", res.Changed)
	for name, err := range res.Failed {
		d.logger.Warn("server not connected after reload", "server", name, "err", err)
	}
}
