package hub

import (
	"maps"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// buildMemo is what a catalog's build remembers so that the next build can
// add servers to it without deciding every tool name again (buildOnto).
type buildMemo struct {
	sources  []sourceMemo
	sep      string
	maxTools int
	reserved map[string]bool
	own      *owners
	// onto holds when a build may be built onto this one: every tool name
	// had one candidate, which won; every source is configured (none is
	// draining); and every tool is listed. Then a name's owner stays its
	// candidate whatever the approvals say (see buildOnto).
	onto bool
}

// sourceMemo is one source of a build: what it was built from, and what it
// gave.
type sourceMemo struct {
	name, namespace string
	allowed, denied []string
	tools           []*mcp.Tool
	digests         map[*mcp.Tool]upstream.Digest
	start, end      int      // its tools in Catalog.Tools
	refusals        []string // its lines in Catalog.Clashes
}

func newBuildMemo(sources []source, sep string, maxTools int, reserved map[string]bool, own *owners) *buildMemo {
	m := &buildMemo{sep: sep, maxTools: maxTools, reserved: reserved, own: own, sources: make([]sourceMemo, len(sources))}
	for i, s := range sources {
		m.sources[i] = sourceMemo{name: s.name, namespace: s.namespace, allowed: s.allowed, denied: s.denied, tools: s.inv.Tools, digests: s.inv.Digests}
	}
	return m
}

// same reports whether s is the source m was built from: same settings and
// the same listed definitions (an upstream's re-list gives new ones).
func (m *sourceMemo) same(s source) bool {
	return m.name == s.name && m.namespace == s.namespace && slices.Equal(m.allowed, s.allowed) &&
		slices.Equal(m.denied, s.denied) && slices.Equal(m.tools, s.inv.Tools) && sameMap(m.digests, s.inv.Digests)
}

// sameMap reports whether a and b are the same map (not merely equal).
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// buildOnto builds the catalog onto prev when the sources are prev's, in
// prev's order, with servers added whose candidate names are new to prev
// and to each other; otherwise it returns nil (build in full). Only the
// added servers' names are decided: a name of prev had one candidate, which
// won and so became its first owner, and the full build would give it to
// that candidate again (approved or not, it is the only one listing it). The
// catalog is the one buildFull would give: the same tools in the same
// order, the same clashes, the same owners recorded and claims made.
func buildOnto(prev *Catalog, sources []source, sep string, maxTools int, reserved map[string]bool, own *owners, roster map[string]string) *Catalog {
	if prev == nil || prev.memo == nil || !prev.memo.ontoWith(sep, maxTools, reserved, own) || !inRoster(sources, roster) {
		return nil
	}
	added, ok := prev.memo.added(sources)
	if !ok {
		return nil
	}
	cands := map[string][]candidate{}
	refusals := make(map[int][]string, len(added))
	for _, i := range added {
		fresh := true
		refusals[i] = sources[i].candidates(sep, reserved, func(name string, cand candidate) {
			if _, taken := prev.tools[name]; taken || cands[name] != nil {
				fresh = false
			}
			cands[name] = []candidate{cand}
		})
		if !fresh {
			return nil
		}
	}
	if maxTools > 0 && len(prev.Tools)+len(cands) > maxTools {
		return nil // some tools would not be listed: the flags depend on the order
	}
	winners, withheld := own.decide(cands, sep, roster)
	c := &Catalog{
		Tools:     make([]*Tool, 0, len(prev.Tools)+len(cands)),
		tools:     make(map[string]*Tool, len(prev.tools)+len(cands)),
		prompts:   map[string]*Prompt{},
		resources: map[string]*Resource{},
	}
	maps.Copy(c.tools, prev.tools)
	memo := newBuildMemo(sources, sep, maxTools, reserved, own)
	memo.onto = len(withheld) == 0
	j := 0 // prev's sources, in order
	for i, s := range sources {
		sm := &memo.sources[i]
		sm.start = len(c.Tools)
		if r, isNew := refusals[i]; isNew {
			sm.refusals = r
			c.addWinners(nil, s, sep, winners, maxTools) // all within maxTools
		} else {
			pm := prev.memo.sources[j]
			j++
			sm.refusals = pm.refusals
			c.Tools = append(c.Tools, prev.Tools[pm.start:pm.end]...)
		}
		sm.end = len(c.Tools)
		c.Clashes = append(c.Clashes, sm.refusals...)
	}
	c.Clashes = append(c.Clashes, withheld...) // sorted, as decide gives them
	c.memo = memo
	c.addOthers(sources, sep)
	return c
}

// ontoWith reports whether a build with these settings may build onto m.
func (m *buildMemo) ontoWith(sep string, maxTools int, reserved map[string]bool, own *owners) bool {
	return m.onto && m.sep == sep && m.maxTools == maxTools && sameMap(m.reserved, reserved) && m.own == own && own != nil
}

// added returns the indexes of the sources m was not built from; ok is
// false unless m's own sources are all among them, the same and in order.
func (m *buildMemo) added(sources []source) (added []int, ok bool) {
	j := 0
	for i, s := range sources {
		if j < len(m.sources) && m.sources[j].same(s) {
			j++
			continue
		}
		if j < len(m.sources) && m.sources[j].name == s.name {
			return nil, false // changed
		}
		added = append(added, i)
	}
	return added, j == len(m.sources)
}

// inRoster reports whether every source is a configured server (none is a
// removed one still draining).
func inRoster(sources []source, roster map[string]string) bool {
	for _, s := range sources {
		if _, ok := roster[s.name]; !ok {
			return false
		}
	}
	return true
}
