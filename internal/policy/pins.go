// Package policy decides which upstream tools weft exposes beyond the
// per-server allow/deny lists: it pins each tool's definition the first time
// weft sees it and withholds a tool whose definition later changes until the
// user approves the change.
package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
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
}

// Pins records tool definition hashes. It is safe for concurrent use.
type Pins struct {
	path   string
	warn   bool // security.pinning = "warn"
	logger *slog.Logger

	mu     sync.Mutex
	data   pinsFile
	warned map[string]bool
}

// Change is a tool whose definition differs from its pin.
type Change struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
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
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		p.data = pinsFile{Pins: map[string]map[string]string{}}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read tool pins %s: %w", p.path, err)
	}
	var d pinsFile
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("tool pins %s are not valid JSON (%v); fix or delete the file (every tool is then pinned afresh)", p.path, err)
	}
	if d.Pins == nil {
		d.Pins = map[string]map[string]string{}
	}
	p.data = d
	return nil
}

// Hash is the pin of a tool definition: a SHA-256 of its name, description,
// input schema and annotations.
func Hash(t *mcp.Tool) string {
	b, _ := json.Marshal(struct {
		Name        string               `json:"name"`
		Description string               `json:"description"`
		InputSchema any                  `json:"inputSchema"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
	}{t.Name, t.Description, t.InputSchema, t.Annotations})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Allow reports whether server's tool may be exposed. A tool seen for the
// first time is pinned; one whose definition changed is withheld and
// recorded for approval (or, in warn mode, exposed with a warning).
func (p *Pins) Allow(server string, t *mcp.Tool) bool {
	return len(p.Filter(server, []*mcp.Tool{t})) == 1
}

// Filter returns the tools of server that Allow would expose. It reads and
// writes the pins file at most once per call: a server with thousands of
// tools costs one read and one write, not one of each per tool.
func (p *Pins) Filter(server string, tools []*mcp.Tool) []*mcp.Tool {
	hashes := make([]string, len(tools))
	for i, t := range tools {
		hashes[i] = Hash(t)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	reloaded, changed := false, false
	out := make([]*mcp.Tool, 0, len(tools))
	for i, t := range tools {
		if !p.settled(server, t.Name, hashes[i]) {
			if !reloaded {
				// Another weft sharing this file may have pinned or approved
				// tools since: decide on the file's current state.
				if err := p.load(); err != nil {
					p.logger.Warn("cannot re-read tool pins; using those in memory", "err", err)
				}
				reloaded = true
			}
			changed = p.record(server, t.Name, hashes[i]) || changed
		}
		if p.exposed(server, t.Name, hashes[i]) {
			out = append(out, t)
		}
	}
	if changed {
		p.save()
	}
	return out
}

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

// record pins a new tool, clears a pending change that was reverted, or
// records a new pending change; it reports whether anything changed.
func (p *Pins) record(server, tool, h string) bool {
	pinned, ok := p.data.Pins[server][tool]
	switch {
	case !ok:
		setIn(&p.data.Pins, server, tool, h)
	case pinned == h:
		if p.data.Pending[server][tool] == "" {
			return false
		}
		delete(p.data.Pending[server], tool)
	case p.data.Pending[server][tool] == h:
		return false
	default:
		setIn(&p.data.Pending, server, tool, h)
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

// save writes the pins atomically, 0600 in a 0700 directory. A
// failure is logged: pins then hold for this run only.
func (p *Pins) save() {
	b, err := json.MarshalIndent(p.data, "", "  ")
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(p.path), 0o700); err == nil {
			err = config.WriteFileAtomic(p.path, b, 0o600)
		}
	}
	if err != nil {
		p.logger.Warn("cannot save tool pins", "path", p.path, "err", err)
	}
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
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.load(); err != nil {
		return nil, err
	}
	var done []Change
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
	p.save()
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
