//go:build !linux

package daemon

// newDirWatcher is fsnotify's watcher here.
func newDirWatcher() (dirWatcher, error) { return newFSWatcher() }
