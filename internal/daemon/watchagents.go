package daemon

import (
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
	"github.com/weft-dev/weft/internal/config"
)

// The watcher follows the agents directory too: one directory per agent,
// each with its own weft.toml. fsnotify does not recurse, so the directory
// and each agent's directory are watched, and directories that appear are
// added as they come.

// watchAgents watches dir and each of its subdirectories, as far as they
// exist.
func watchAgents(w *fsnotify.Watcher, dir string) {
	if w.Add(dir) != nil {
		return // not there yet: its creation is an event of its parent
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			_ = w.Add(filepath.Join(dir, e.Name()))
		}
	}
}

// agentEvent reports whether ev changes an agent's config: the agents
// directory or an agent's directory appearing or going (now watched too),
// or an agent's weft.toml written.
func agentEvent(w *fsnotify.Watcher, dir string, ev fsnotify.Event) bool {
	name := filepath.Clean(ev.Name)
	parent := filepath.Dir(name)
	switch {
	case name == filepath.Clean(dir), parent == filepath.Clean(dir):
		if ev.Has(fsnotify.Create) {
			watchAgents(w, dir)
		}
		return true
	case filepath.Dir(parent) == filepath.Clean(dir):
		return filepath.Base(name) == config.AgentFileName
	}
	return false
}

// followAgents moves the watch from the agents directory old to now (a
// reload changed [gateway] agents_dir) and reports whether it moved. keep is
// the config file's directory, which stays watched even when it held the
// agents. A file written in the new directory before its watch began is
// seen by no event: after a move, the caller reloads once more.
func followAgents(w *fsnotify.Watcher, old, now, keep string) bool {
	old, now = filepath.Clean(old), filepath.Clean(now)
	if old == now {
		return false
	}
	for _, p := range w.WatchList() {
		p = filepath.Clean(p)
		if p != filepath.Clean(keep) && (p == old || filepath.Dir(p) == old) {
			_ = w.Remove(p)
		}
	}
	watchAgents(w, now)
	return true
}
