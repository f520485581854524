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
// Other items: earlier sources win every clash. A tool of prev that comes
// out the same is reused: as upstreams arrive one by one, each build would
// otherwise copy every definition listed so far again.
func buildCatalog(prev *Catalog, sources []source, sep string, maxTools int, reserved map[string]bool, own *owners, roster map[string]string) *Catalog {
	n := toolCount(sources)
	c := &Catalog{
		tools:     make(map[string]*Tool, n),
		prompts:   map[string]*Prompt{},
		resources: map[string]*Resource{},
	}
	winners := c.toolWinners(sources, sep, reserved, own, roster)
	for _, s := range sources {
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
				def := *t
				def.Name = name
				tool = &Tool{Name: name, Server: s.name, Original: t.Name, Def: &def, Digest: digestOf(s.inv, t), Listed: listed, src: t}
			}
			c.Tools = append(c.Tools, tool)
			c.tools[name] = tool
		}
	}
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
	return c
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
// c.Clashes every tool refused or withheld.
func (c *Catalog) toolWinners(sources []source, sep string, reserved map[string]bool, own *owners, roster map[string]string) map[string]string {
	n := toolCount(sources)
	// Most names have one candidate: they share one backing array, each
	// capped at its own element, so that a second candidate copies.
	cands := make(map[string][]candidate, n)
	backing := make([]candidate, 0, n)
	for _, s := range sources {
		for _, t := range s.inv.Tools {
			if !toolAllowed(t.Name, s.allowed, s.denied) {
				continue
			}
			name := naming.Join(s.namespace, sep, t.Name)
			switch {
			case s.inv.Digests[t].Refused != "":
				c.Clashes = append(c.Clashes, fmt.Sprintf("tool %s of %s refused: %s", name, s.name, s.inv.Digests[t].Refused))
			case reserved[name]:
				c.Clashes = append(c.Clashes, fmt.Sprintf("tool %s of %s skipped: the name is a weft built-in", name, s.name))
			case s.namespace == "" && strings.Contains(t.Name, sep):
				c.Clashes = append(c.Clashes, fmt.Sprintf("tool %s of %s refused: under an empty prefix a name may not contain %q (it could pass for another server's tool)", name, s.name, sep))
			default:
				cand := candidate{server: s.name, original: t.Name}
				if cs, ok := cands[name]; ok {
					cands[name] = append(cs, cand)
				} else {
					backing = append(backing, cand)
					cands[name] = backing[len(backing)-1 : len(backing) : len(backing)]
				}
			}
		}
	}
	if own == nil {
		own = &owners{}
	}
	winners, clashes := own.decide(cands, sep, roster)
	c.Clashes = append(c.Clashes, clashes...)
	return winners
}
