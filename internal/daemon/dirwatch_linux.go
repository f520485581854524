package daemon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// inotifyMask is what a watched directory reports: entries appearing,
// going and renamed, metadata changes, and a file closed after writing —
// not each write (IN_MODIFY), which fsnotify cannot leave out. An edit in
// place ends with its close; a save by rename is a move; the audit log,
// open for as long as weft runs, is never closed between its lines.
const inotifyMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_DELETE | unix.IN_CLOSE_WRITE |
	unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// inotifyOps are the fsnotify operations inotify's bits stand for.
var inotifyOps = []struct {
	bits uint32
	op   fsnotify.Op
}{
	{unix.IN_CREATE | unix.IN_MOVED_TO, fsnotify.Create},
	{unix.IN_CLOSE_WRITE, fsnotify.Write},
	{unix.IN_DELETE | unix.IN_DELETE_SELF, fsnotify.Remove},
	{unix.IN_MOVED_FROM | unix.IN_MOVE_SELF, fsnotify.Rename},
	{unix.IN_ATTRIB, fsnotify.Chmod},
}

// inotifyWatcher is a dirWatcher over one inotify descriptor; its reader
// goroutine ends with Close.
type inotifyWatcher struct {
	fd     int // f's descriptor (f.Fd would make f blocking, and Close could not wake Read)
	f      *os.File
	events chan fsnotify.Event
	errs   chan error
	done   chan struct{} // closed by Close: the reader stops sending
	ended  chan struct{} // closed by the reader as it returns

	mu    sync.Mutex
	paths map[int]string // watch descriptor → directory
	wds   map[string]int
	once  sync.Once
}

// newDirWatcher starts an inotify watcher; only directories can be added.
func newDirWatcher() (dirWatcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	w := &inotifyWatcher{fd: fd, f: os.NewFile(uintptr(fd), "inotify"), events: make(chan fsnotify.Event), errs: make(chan error),
		done: make(chan struct{}), ended: make(chan struct{}), paths: map[int]string{}, wds: map[string]int{}}
	go w.read()
	return w, nil
}

// Add implements dirWatcher.
func (w *inotifyWatcher) Add(path string) error {
	path = filepath.Clean(path)
	wd, err := unix.InotifyAddWatch(w.fd, path, inotifyMask)
	if err != nil {
		return &os.PathError{Op: "watch", Path: path, Err: err}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paths[wd], w.wds[path] = path, wd
	return nil
}

// Remove implements dirWatcher.
func (w *inotifyWatcher) Remove(path string) error {
	path = filepath.Clean(path)
	w.mu.Lock()
	wd, ok := w.wds[path]
	delete(w.wds, path)
	delete(w.paths, wd)
	w.mu.Unlock()
	if !ok {
		return fmt.Errorf("watch %s: %w", path, fsnotify.ErrNonExistentWatch)
	}
	if _, err := unix.InotifyRmWatch(w.fd, uint32(wd)); err != nil && !errors.Is(err, unix.EINVAL) {
		return &os.PathError{Op: "unwatch", Path: path, Err: err}
	}
	return nil
}

// WatchList implements dirWatcher.
func (w *inotifyWatcher) WatchList() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.wds))
	for p := range w.wds {
		out = append(out, p)
	}
	return out
}

// Events implements dirWatcher.
func (w *inotifyWatcher) Events() <-chan fsnotify.Event { return w.events }

// Errors implements dirWatcher.
func (w *inotifyWatcher) Errors() <-chan error { return w.errs }

// Close stops the reader and waits for it.
func (w *inotifyWatcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		err = w.f.Close() // wakes the reader's Read
		<-w.ended
	})
	return err
}

// read turns what the descriptor reports into events until Close.
func (w *inotifyWatcher) read() {
	defer close(w.ended)
	defer close(w.errs)
	defer close(w.events)
	buf := make([]byte, 64*(unix.SizeofInotifyEvent+unix.NAME_MAX+1))
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			if !errors.Is(err, os.ErrClosed) {
				w.sendErr(fmt.Errorf("inotify: %w", err))
			}
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int(int32(binary.NativeEndian.Uint32(buf[off:])))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			nameLen := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+nameLen]), "\x00")
			off += unix.SizeofInotifyEvent + nameLen
			if mask&unix.IN_Q_OVERFLOW != 0 {
				if !w.sendErr(fsnotify.ErrEventOverflow) {
					return
				}
				continue
			}
			ev, ok := w.event(wd, mask, name)
			if !ok {
				continue
			}
			select {
			case w.events <- ev:
			case <-w.done:
				return
			}
		}
	}
}

// event names what one inotify record says, as fsnotify would; ok is false
// for a record of no interest (a watch that ended).
func (w *inotifyWatcher) event(wd int, mask uint32, name string) (fsnotify.Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	dir, known := w.paths[wd]
	if mask&unix.IN_IGNORED != 0 {
		if known {
			delete(w.paths, wd)
			if w.wds[dir] == wd {
				delete(w.wds, dir)
			}
		}
		return fsnotify.Event{}, false
	}
	if !known {
		return fsnotify.Event{}, false
	}
	ev := fsnotify.Event{Name: dir}
	if name != "" {
		ev.Name = filepath.Join(dir, name)
	}
	for _, b := range inotifyOps {
		if mask&b.bits != 0 {
			ev.Op |= b.op
		}
	}
	return ev, ev.Op != 0
}

// sendErr reports err unless Close came first.
func (w *inotifyWatcher) sendErr(err error) bool {
	select {
	case w.errs <- err:
		return true
	case <-w.done:
		return false
	}
}
