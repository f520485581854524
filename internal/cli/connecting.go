package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// npxHintAfter is when the connecting line starts to explain a slow npx: its
// first run of a package downloads it.
const npxHintAfter = 3 * time.Second

// connectingLine shows "connecting to NAME… Ns" on w, rewritten in place
// each second, until stop erases it. It draws only when w is a terminal: a
// pipe or a log file gets nothing.
type connectingLine struct {
	w     io.Writer
	name  string
	npx   bool
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
}

// startConnecting starts the line for server name run by target; stop it
// before printing anything else.
func startConnecting(w io.Writer, name, target string) *connectingLine {
	l := &connectingLine{w: w, name: name, start: time.Now(), done: make(chan struct{})}
	base := target[strings.LastIndexAny(target, `/\`)+1:] // a Windows path is named on any OS
	l.npx = strings.TrimSuffix(base, filepath.Ext(base)) == "npx"
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return l
	}
	l.wg.Add(1)
	go l.draw()
	return l
}

func (l *connectingLine) draw() {
	defer l.wg.Done()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		fmt.Fprintf(l.w, "\r\033[K%s", l.text(time.Since(l.start)))
		select {
		case <-tick.C:
		case <-l.done:
			fmt.Fprint(l.w, "\r\033[K")
			return
		}
	}
}

// text is the line after elapsed.
func (l *connectingLine) text(elapsed time.Duration) string {
	s := fmt.Sprintf("connecting to %s… %ds", l.name, int(elapsed.Seconds()))
	if l.npx && elapsed >= npxHintAfter {
		s += " — npx may be downloading the package"
	}
	return s
}

// stop erases the line and returns once it is gone.
func (l *connectingLine) stop() {
	close(l.done)
	l.wg.Wait()
}
