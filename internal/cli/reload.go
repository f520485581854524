package cli

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/policy"
)

// reloadDebounce turns a burst of file events into one reload.
const reloadDebounce = 500 * time.Millisecond

// startWatcher applies config changes to the running hub until the returned
// stop func is called; stop waits for the watcher to end.
func (a *app) startWatcher(ctx context.Context, rt *runtime) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.watchConfig(ctx, rt)
	}()
	return func() { cancel(); <-done }
}

// watchConfig watches the config file's directory (editors save by rename)
// and re-applies the config after each debounced burst of changes. A file
// that fails to load changes nothing.
func (a *app) watchConfig(ctx context.Context, rt *runtime) {
	path := rt.cfg.Path
	if path == "" {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		a.logger.Warn("config reload disabled", "err", err)
		return
	}
	defer w.Close()
	dir := filepath.Dir(path)
	if err := w.Add(dir); err != nil {
		a.logger.Warn("config reload disabled: cannot watch the config directory", "dir", dir, "err", err)
		return
	}
	watched := map[string]bool{filepath.Base(path): true, ".mcp.json": true, policy.PinsFileName: true}
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
			if watched[filepath.Base(ev.Name)] {
				timer.Reset(reloadDebounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			a.logger.Warn("config watch", "err", err)
		case <-timer.C:
			a.reload(ctx, rt)
		}
	}
}

func (a *app) reload(ctx context.Context, rt *runtime) {
	began := time.Now()
	cfg, err := a.loadConfig()
	if err != nil {
		a.logger.Error("config not reloaded; the running servers are unchanged", "err", err)
		rt.obs.reloaded(began, nil, hub.ApplyResult{}, err)
		return
	}
	if err := rt.pins.Reload(); err != nil {
		a.logger.Warn("tool pins not reloaded", "err", err)
	}
	res := rt.hub.Apply(ctx, cfg.Servers)
	rt.hub.Refresh()
	rt.obs.reloaded(began, cfg, res, nil)
	a.logger.Info("config reloaded", "added", res.Added, "removed", res.Removed, "changed", res.Changed)
	for name, err := range res.Failed {
		a.logger.Warn("server not connected after reload", "server", name, "err", err)
	}
}
