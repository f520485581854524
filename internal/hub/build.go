package hub

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/naming"
	"github.com/weft-dev/weft/internal/upstream"
	"github.com/yosida95/uritemplate/v3"
)

// source is one active server's contribution to a catalog build.
type source struct {
	name      string
	namespace string
	allowed   []string
	denied    []string
	inv       upstream.Inventory
}

// buildCatalog merges the sources, in order, into a new snapshot. A tool
// name goes to its first owner (see owners); reserved names (weft's
// built-ins) are never shadowed; under an empty prefix a name containing
// the separator is refused, since it could pass for another server's tool.
// Other items: earlier sources win every clash. When the sources are prev's
// plus servers whose tool names are new, the tools are built onto prev's
// (buildOnto): as upstreams arrive in batches, each build would otherwise
// decide every name listed so far again. The result is the full build's.
func buildCatalog(prev *Catalog, sources []source, sep string, maxTools int, reserved map[string]bool, own *owners, roster map[string]string) *Catalog {
	if c := buildOnto(prev, sources, sep, maxTools, reserved, own, roster); c != nil {
		return c
	}
	return buildFull(prev, sources, sep, maxTools, reserved, own, roster)
}

// buildFull builds the catalog from every source. A tool of prev that comes
// out the same is reused rather than copied again.
func buildFull(prev *Catalog, sources []source, sep string, maxTools int, reserved map[string]bool, own *owners, roster map[string]string) *Catalog {
	n := toolCount(sources)
	c := &Catalog{
		tools:     make(map[string]*Tool, n),
		prompts:   map[string]*Prompt{},
		resources: map[string]*Resource{},
	}
	memo := newBuildMemo(sources, sep, maxTools, reserved, own)
	winners, single := c.toolWinners(sources, sep, reserved, own, roster, memo)
	for i, s := range sources {
		memo.sources[i].start = len(c.Tools)
		c.addWinners(prev, s, sep, winners, maxTools)
		memo.sources[i].end = len(c.Tools)
	}
	memo.onto = single && inRoster(sources, roster) && (maxTools <= 0 || len(c.Tools) <= maxTools)
	c.memo = memo
	c.addOthers(sources, sep)
	return c
}

// addWinners adds the tools of s that won their names, listed while within
// maxTools; a tool of prev built the same is reused.
func (c *Catalog) addWinners(prev *Catalog, s source, sep string, winners map[string]string, maxTools int) {
	for _, t := range s.inv.Tools {
		if !toolAllowed(t.Name, s.allowed, s.denied) {
			continue
		}
		name := naming.Join(s.namespace, sep, t.Name)
		if winners[name] != s.name || c.tools[name] != nil {
			continue
		}
		listed := maxTools <= 0 || len(c.Tools) < maxTools
		tool := prev.builtAgain(name, s.name, t, listed)
		if tool == nil {
			tool = newTool(name, s, t, listed)
		}
		c.Tools = append(c.Tools, tool)
		c.tools[name] = tool
	}
}

// newTool builds the tool exposing server s's definition t as name.
func newTool(name string, s source, t *mcp.Tool, listed bool) *Tool {
	def := *t
	def.Name = name
	return &Tool{Name: name, Server: s.name, Original: t.Name, Def: &def, Digest: digestOf(s.inv, t), Listed: listed, src: t}
}

// addOthers adds the sources' prompts, resources and templates; earlier
// sources win every clash.
func (c *Catalog) addOthers(sources []source, sep string) {
	for _, s := range sources {
		for _, p := range s.inv.Prompts {
			name := naming.Join(s.namespace, sep, p.Name)
			if _, dup := c.prompts[name]; dup {
				c.Clashes = append(c.Clashes, fmt.Sprintf("prompt %s of %s skipped: already used", name, s.name))
				continue
			}
			def := *p
			def.Name = name
			prompt := &Prompt{Name: name, Server: s.name, Original: p.Name, Def: &def}
			c.Prompts = append(c.Prompts, prompt)
			c.prompts[name] = prompt
		}
		for _, r := range s.inv.Resources {
			if _, _, inst := config.SplitInstance(s.name); inst {
				// A separate instance of a configured server lists the
				// same URIs for its agent: kept beside the server's own,
				// never routed to by URI alone (see ReadResourceFrom).
				c.Resources = append(c.Resources, &Resource{Server: s.name, Def: r})
				continue
			}
			if prev, dup := c.resources[r.URI]; dup {
				c.Clashes = append(c.Clashes, fmt.Sprintf("resource %s of %s skipped: served by %s", r.URI, s.name, prev.Server))
				continue
			}
			res := &Resource{Server: s.name, Def: r}
			c.Resources = append(c.Resources, res)
			c.resources[r.URI] = res
		}
		for _, t := range s.inv.Templates {
			m, err := uritemplate.New(t.URITemplate)
			if err != nil {
				c.Clashes = append(c.Clashes, fmt.Sprintf("template %s of %s skipped: %v", t.URITemplate, s.name, err))
				continue
			}
			c.Templates = append(c.Templates, &Template{Server: s.name, Def: t, matcher: m})
		}
	}
}

// builtAgain returns c's tool name when building it from server's
// definition t would give the same tool; nil otherwise. Tools are never
// changed once built, so catalogs can share them.
func (c *Catalog) builtAgain(name, server string, t *mcp.Tool, listed bool) *Tool {
	if c == nil {
		return nil
	}
	if p := c.tools[name]; p != nil && p.src == t && p.Server == server && p.Listed == listed {
		return p
	}
	return nil
}

// toolCount is how many tools the sources list, to size a build's maps.
func toolCount(sources []source) int {
	n := 0
	for _, s := range sources {
		n += len(s.inv.Tools)
	}
	return n
}

// digestOf returns the digest the upstream computed when it listed t, or
// computes it for an inventory built some other way.
func digestOf(inv upstream.Inventory, t *mcp.Tool) [32]byte {
	if d, ok := inv.Digests[t]; ok {
		return d.Def
	}
	b, _ := json.Marshal(t)
	return sha256.Sum256(b)
}

// toolWinners decides which server exposes each tool name, recording in
// c.Clashes every tool refused or withheld, and in memo each source's
// refusals. single reports that every name had one candidate, which won.
func (c *Catalog) toolWinners(sources []source, sep string, reserved map[string]bool, own *owners, roster map[string]string, memo *buildMemo) (winners map[string]string, single bool) {
	n := toolCount(sources)
	// Most names have one candidate: they share one backing array, each
	// capped at its own element, so that a second candidate copies.
	cands := make(map[string][]candidate, n)
	backing := make([]candidate, 0, n)
	for i, s := range sources {
		refusals := s.candidates(sep, reserved, func(name string, cand candidate) {
			if cs, ok := cands[name]; ok {
				cands[name] = append(cs, cand)
			} else {
				backing = append(backing, cand)
				cands[name] = backing[len(backing)-1 : len(backing) : len(backing)]
			}
		})
		memo.sources[i].refusals = refusals
		c.Clashes = append(c.Clashes, refusals...)
	}
	if own == nil {
		own = &owners{}
	}
	winners, clashes := own.decide(cands, sep, roster)
	c.Clashes = append(c.Clashes, clashes...)
	single = true
	for name, cs := range cands {
		if len(cs) != 1 || winners[name] != cs[0].server {
			single = false
			break
		}
	}
	return winners, single
}

// candidates passes add each tool name s may expose, and returns the lines
// for the tools it refuses.
func (s source) candidates(sep string, reserved map[string]bool, add func(name string, c candidate)) []string {
	var refusals []string
	for _, t := range s.inv.Tools {
		if !toolAllowed(t.Name, s.allowed, s.denied) {
			continue
		}
		name := naming.Join(s.namespace, sep, t.Name)
		switch {
		case s.inv.Digests[t].Refused != "":
			refusals = append(refusals, fmt.Sprintf("tool %s of %s refused: %s", name, s.name, s.inv.Digests[t].Refused))
		case reserved[name]:
			refusals = append(refusals, fmt.Sprintf("tool %s of %s skipped: the name is a weft built-in", name, s.name))
		case s.namespace == "" && strings.Contains(t.Name, sep):
			refusals = append(refusals, fmt.Sprintf("tool %s of %s refused: under an empty prefix a name may not contain %q (it could pass for another server's tool)", name, s.name, sep))
		default:
			add(name, candidate{server: s.name, original: t.Name})
		}
	}
	return refusals
}
