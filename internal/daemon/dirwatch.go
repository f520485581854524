package daemon

import "github.com/fsnotify/fsnotify"

// dirWatcher watches directories (not recursively) for the config
// watcher. Where the platform allows it (dirwatch_linux.go), it leaves out
// writes to files that stay open: the audit log usually lives beside
// weft.toml, and a watch that woke for each of its lines cost every tool
// call two goroutine wake-ups.
type dirWatcher interface {
	Add(path string) error
	Remove(path string) error
	WatchList() []string
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

// fsWatcher is fsnotify's watcher, which sees every write.
type fsWatcher struct{ *fsnotify.Watcher }

func newFSWatcher() (dirWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsWatcher{w}, nil
}

// Events implements dirWatcher.
func (w fsWatcher) Events() <-chan fsnotify.Event { return w.Watcher.Events }

// Errors implements dirWatcher.
func (w fsWatcher) Errors() <-chan error { return w.Watcher.Errors }
