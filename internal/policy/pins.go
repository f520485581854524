// Package policy decides which upstream tools weft exposes beyond the
// per-server allow/deny lists: it pins each tool's definition the first time
// weft sees it and withholds a tool whose definition later changes until the
// user approves the change.
package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/filelock"
	"github.com/weft-dev/weft/internal/tooldigest"
)

// PinsFileName is the pins file kept beside weft.toml.
const PinsFileName = "weft.pins.json"

// PinsPath returns the pins file for the config at configPath.
func PinsPath(configPath string) string {
	return filepath.Join(filepath.Dir(configPath), PinsFileName)
}

// pinsFile is the on-disk shape: pinned hashes, and the changed definitions
// waiting for `weft mcp approve`, both by server then tool.
type pinsFile struct {
	Pins    map[string]map[string]string `json:"pins"`
	Pending map[string]map[string]string `json:"pending,omitempty"`
	// Claims are exposed tool names a server would take over from another
	// (server → name → owner), withheld until approved; Owners holds the
	// approved ones (name → server).
	Claims map[string]map[string]string `json:"claims,omitempty"`
	Owners map[string]string            `json:"owners,omitempty"`
}

// Pins records tool definition hashes. It is safe for concurrent use.
// Decisions are made in memory (Filter runs under the hub's rebuild lock);
// what they record is written to the file by a background save, under a
// cross-process lock, merged into whatever other wefts wrote meanwhile.
type Pins struct {
	path   string
	warn   bool // security.pinning = "warn"
	logger *slog.Logger
	// OnChange, when set, is called after a save merged in decisions of
	// another weft that change what is exposed (the hub refreshes).
	OnChange func()

	mu     sync.Mutex
	data   pinsFile
	warned map[string]bool
	seen   []func(*pinsFile) bool // recorded since the last save, to merge into the file
	saving chan struct{}          // non-nil while a save runs; closed when it ends
	again  bool                   // more was recorded while a save ran
	// written is the file as this weft's last save left it (nil: unknown,
	// so the next save re-reads it); a save that finds it unchanged needs
	// no re-read, since data is then the file plus what seen holds.
	written os.FileInfo
	loads   int // counts loads, which replace data with the file's
}

// Change is a tool whose definition differs from its pin.
type Change struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// TakesOverFrom, when set, names the server that exposes Tool (an
	// exposed name) today: approving hands the name to Server.
	TakesOverFrom string `json:"takes_over_from,omitempty"`
}

// OpenPins reads the pins file at path (a missing file means nothing is
// pinned yet). mode is config.PinningStrict or config.PinningWarn.
func OpenPins(path, mode string, logger *slog.Logger) (*Pins, error) {
	if logger == nil {
		logger = slog.Default()
	}
	p := &Pins{path: path, warn: mode == config.PinningWarn, logger: logger, warned: map[string]bool{}}
	if err := p.load(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Pins) load() error {
	d, err := readPins(p.path)
	if err != nil {
		return err
	}
	p.data, p.written = d, nil
	p.loads++
	return nil
}

// readPins reads the pins file at path; a missing file pins nothing.
func readPins(path string) (pinsFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pinsFile{Pins: map[string]map[string]string{}}, nil
	}
	if err != nil {
		return pinsFile{}, fmt.Errorf("read tool pins %s: %w", path, err)
	}
	var d pinsFile
	if err := json.Unmarshal(b, &d); err != nil {
		return pinsFile{}, fmt.Errorf("tool pins %s are not valid JSON (%v); fix or delete the file (every tool is then pinned afresh)", path, err)
	}
	if d.Pins == nil {
		d.Pins = map[string]map[string]string{}
	}
	return d, nil
}

// Hash is the pin of a tool definition (see tooldigest.Pin).
func Hash(t *mcp.Tool) string { return tooldigest.Pin(t) }

// Allow reports whether server's tool may be exposed. A tool seen for the
// first time is pinned; one whose definition changed is withheld and
// recorded for approval (or, in warn mode, exposed with a warning). Unlike
// Filter it waits until what it recorded is saved.
func (p *Pins) Allow(server string, t *mcp.Tool) bool {
	ok := len(p.Filter(server, []*mcp.Tool{t}, nil)) == 1
	p.Flush()
	return ok
}

// Filter returns the tools of server that Allow would expose. hashes, when
// not nil, holds each tool's Hash, computed when the upstream listed it;
// Filter does no disk I/O: new pins and pending changes are saved in the
// background (see Flush).
func (p *Pins) Filter(server string, tools []*mcp.Tool, hashes []string) []*mcp.Tool {
	if hashes == nil {
		hashes = make([]string, len(tools))
		for i, t := range tools {
			hashes[i] = Hash(t)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	recorded := false
	out := make([]*mcp.Tool, 0, len(tools))
	for i, t := range tools {
		if !p.settled(server, t.Name, hashes[i]) && p.record(&p.data, server, t.Name, hashes[i]) {
			tool, h := t.Name, hashes[i]
			p.seen = append(p.seen, func(d *pinsFile) bool { return p.record(d, server, tool, h) })
			recorded = true
		}
		if p.exposed(server, t.Name, hashes[i]) {
			out = append(out, t)
		}
	}
	if recorded {
		p.saveInBackgroundLocked()
	}
	return out
}

// saveInBackgroundLocked starts a save unless one runs, in which case that
// one saves again when it ends; callers hold p.mu.
func (p *Pins) saveInBackgroundLocked() {
	if p.saving != nil {
		p.again = true
		return
	}
	done := make(chan struct{})
	p.saving = done
	go func() {
		defer close(done)
		for {
			p.mergeAndSave()
			p.mu.Lock()
			if !p.again {
				p.saving = nil
				p.mu.Unlock()
				return
			}
			p.again = false
			p.mu.Unlock()
		}
	}()
}

// Flush waits until what Filter recorded is saved.
func (p *Pins) Flush() {
	p.mu.Lock()
	done := p.saving
	p.mu.Unlock()
	if done != nil {
		<-done
	}
}

// mergeAndSave re-reads the file under its cross-process lock, applies what
// this weft recorded since the last save, writes the result and adopts it.
func (p *Pins) mergeAndSave() {
	ctx, cancel := context.WithTimeout(context.Background(), pinsLockTimeout)
	defer cancel()
	unlock, err := filelock.Lock(ctx, p.path)
	if err != nil {
		p.logger.Warn("cannot lock tool pins; they hold for this run only", "path", p.path, "err", err)
		return
	}
	defer unlock()
	if p.OwnWrite() {
		p.saveOwn()
		return
	}
	fresh, err := readPins(p.path)
	if err != nil {
		p.logger.Warn("cannot re-read tool pins; saving those in memory", "err", err)
	}
	p.mu.Lock()
	seen := p.seen
	p.seen = nil
	if err == nil {
		for _, apply := range seen {
			apply(&fresh)
		}
	} else {
		fresh = p.data
	}
	differs := !equalPins(fresh, p.data)
	p.data = fresh
	// Encoded under the lock: Filter changes these maps once it is released.
	b, loads := encodePins(fresh), p.loads
	p.written = nil
	p.mu.Unlock()
	p.writeAndNote(b, loads)
	if differs && p.OnChange != nil {
		p.OnChange()
	}
}

// OwnWrite reports whether the pins file is still the one this weft's last
// save wrote: every writer of it (weft's saves and approvals) replaces it
// by a rename, so another's write is another file, and an edit in place
// changes its size or time. A save (under the file's lock) then needs no
// re-read, and the config watcher no reload for that file's event.
func (p *Pins) OwnWrite() bool {
	p.mu.Lock()
	last := p.written
	p.mu.Unlock()
	if last == nil {
		return false
	}
	now, err := os.Stat(p.path)
	return err == nil && os.SameFile(now, last) && now.Size() == last.Size() && now.ModTime().Equal(last.ModTime())
}

// saveOwn writes data, which holds everything seen, when the file is the
// one this weft last wrote; callers hold the file's lock.
func (p *Pins) saveOwn() {
	p.mu.Lock()
	p.seen = nil
	b, loads := encodePins(p.data), p.loads
	p.written = nil
	p.mu.Unlock()
	p.writeAndNote(b, loads)
}

// writeAndNote writes b as the pins file and notes what it wrote, so that
// the next save can tell whether anyone else wrote since, unless data was
// reloaded since b was encoded (loads moved on); callers hold the file's
// lock.
func (p *Pins) writeAndNote(b []byte, loads int) {
	err := p.writeBytes(b)
	var info os.FileInfo
	if err == nil {
		info, err = os.Stat(p.path)
	}
	if err != nil {
		p.logger.Warn("cannot save tool pins", "path", p.path, "err", err)
		return
	}
	p.mu.Lock()
	if p.loads == loads {
		p.written = info
	}
	p.mu.Unlock()
}

// pinsLockTimeout bounds the wait for another weft's edit of the pins file.
const pinsLockTimeout = 10 * time.Second

// exposed decides on a recorded definition, warning once per change.
func (p *Pins) exposed(server, tool, h string) bool {
	if p.data.Pins[server][tool] == h {
		return true
	}
	key := server + "/" + tool + "/" + h
	if !p.warned[key] {
		p.warned[key] = true
		if p.warn {
			p.logger.Warn("tool definition changed since it was first seen; exposed because security.pinning = \"warn\"", "server", server, "tool", tool)
		} else {
			p.logger.Warn("tool withheld: its definition changed since it was first seen; review it, then run `weft mcp approve "+server+"`", "server", server, "tool", tool)
		}
	}
	return p.warn
}

// settled reports whether the file already says all there is to say about
// this definition: pinned with nothing pending, or recorded as pending.
func (p *Pins) settled(server, tool, h string) bool {
	pinned, ok := p.data.Pins[server][tool]
	pending := p.data.Pending[server][tool]
	return ok && ((pinned == h && pending == "") || (pinned != h && pending == h))
}

// record pins a new tool in d, clears a pending change that was reverted,
// or records a new pending change; it reports whether anything changed.
func (p *Pins) record(d *pinsFile, server, tool, h string) bool {
	pinned, ok := d.Pins[server][tool]
	switch {
	case !ok:
		setIn(&d.Pins, server, tool, h)
	case pinned == h:
		if d.Pending[server][tool] == "" {
			return false
		}
		delete(d.Pending[server], tool)
	case d.Pending[server][tool] == h:
		return false
	default:
		setIn(&d.Pending, server, tool, h)
	}
	return true
}

func setIn(m *map[string]map[string]string, server, tool, h string) {
	if *m == nil {
		*m = map[string]map[string]string{}
	}
	if (*m)[server] == nil {
		(*m)[server] = map[string]string{}
	}
	(*m)[server][tool] = h
}

// write saves d atomically, 0600 in a 0700 directory; callers hold the
// file's cross-process lock.
func (p *Pins) write(d pinsFile) error {
	return p.writeBytes(encodePins(d))
}

// writeBytes replaces the pins file with b.
func (p *Pins) writeBytes(b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(p.path, b, 0o600)
}

// equalPins reports whether two states pin and hold back the same hashes.
func equalPins(a, b pinsFile) bool {
	return equalNested(a.Pins, b.Pins) && equalNested(a.Pending, b.Pending) && equalNested(a.Claims, b.Claims) &&
		equalNested(map[string]map[string]string{"": a.Owners}, map[string]map[string]string{"": b.Owners})
}

func equalNested(a, b map[string]map[string]string) bool {
	count := func(m map[string]map[string]string) int {
		n := 0
		for _, in := range m {
			n += len(in)
		}
		return n
	}
	if count(a) != count(b) {
		return false
	}
	for s, in := range a {
		for t, h := range in {
			if b[s][t] != h {
				return false
			}
		}
	}
	return true
}

// Pending lists the tools withheld (or warned about) because their
// definition changed, by server and tool.
func (p *Pins) Pending() []Change {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Change
	for s, tools := range p.data.Pending {
		for t := range tools {
			out = append(out, Change{Server: s, Tool: t})
		}
	}
	for s, names := range p.data.Claims {
		for n, owner := range names {
			out = append(out, Change{Server: s, Tool: n, TakesOverFrom: owner})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Server != out[j].Server {
			return out[i].Server < out[j].Server
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}

// Approve accepts the pending definitions of server (every changed tool, or
// only tool when it is not empty) as the new pins, and returns what it
// approved.
func (p *Pins) Approve(server, tool string) ([]Change, error) {
	p.Flush()
	ctx, cancel := context.WithTimeout(context.Background(), pinsLockTimeout)
	defer cancel()
	unlock, err := filelock.Lock(ctx, p.path)
	if err != nil {
		return nil, fmt.Errorf("tool pins are being edited by another weft (%w); try again", err)
	}
	defer unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.load(); err != nil {
		return nil, err
	}
	done := p.approveClaimsLocked(server, tool)
	for t, h := range p.data.Pending[server] {
		if tool != "" && t != tool {
			continue
		}
		setIn(&p.data.Pins, server, t, h)
		delete(p.data.Pending[server], t)
		done = append(done, Change{Server: server, Tool: t})
	}
	if len(p.data.Pending[server]) == 0 {
		delete(p.data.Pending, server)
	}
	if len(done) == 0 {
		return nil, fmt.Errorf("no changed tool of %q waits for approval; `weft mcp approve` without a name lists those that do", server+suffix(tool))
	}
	sort.Slice(done, func(i, j int) bool { return done[i].Tool < done[j].Tool })
	if err := p.write(p.data); err != nil {
		return nil, fmt.Errorf("save tool pins %s: %w", p.path, err)
	}
	return done, nil
}

func suffix(tool string) string {
	if tool == "" {
		return ""
	}
	return "/" + tool
}

// Reload re-reads the pins file, so that approvals made by another weft
// process take effect.
func (p *Pins) Reload() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.load()
}
