package hub

import (
	"path"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/yosida95/uritemplate/v3"
)

// Tool is an upstream tool as weft exposes it.
type Tool struct {
	Name     string    // exposed, namespaced name
	Server   string    // upstream server name
	Original string    // the upstream's own name
	Def      *mcp.Tool // definition with Name set to the exposed name
	// Digest identifies the upstream's definition, computed when it was
	// listed: equal digests under one name mean nothing to tell clients.
	Digest [32]byte
	Listed bool // within limits.max_tools; else reachable through search
	// src is the upstream's definition the tool was built from: the next
	// catalog build reuses the tool while its upstream lists the same one.
	src *mcp.Tool
}

// Prompt is an upstream prompt as weft exposes it.
type Prompt struct {
	Name     string
	Server   string
	Original string
	Def      *mcp.Prompt
}

// Resource is an upstream resource; its URI is kept as the upstream gave it.
type Resource struct {
	Server string
	Def    *mcp.Resource
}

// Template is an upstream resource template.
type Template struct {
	Server  string
	Def     *mcp.ResourceTemplate
	matcher *uritemplate.Template
}

// Catalog is an immutable snapshot of everything weft exposes from its
// upstreams. A new snapshot replaces it whenever anything changes.
type Catalog struct {
	Tools     []*Tool
	Prompts   []*Prompt
	Resources []*Resource
	Templates []*Template
	// Clashes describes items skipped because another server or a built-in
	// already uses the name or URI (first configured wins).
	Clashes []string

	tools     map[string]*Tool
	prompts   map[string]*Prompt
	resources map[string]*Resource
	// memo is what the next build needs to build onto this one.
	memo *buildMemo
}

// Tool looks a tool up by its exposed name.
func (c *Catalog) Tool(name string) (*Tool, bool) {
	t, ok := c.tools[name]
	return t, ok
}

// Prompt looks a prompt up by its exposed name.
func (c *Catalog) Prompt(name string) (*Prompt, bool) {
	p, ok := c.prompts[name]
	return p, ok
}

// ResourceServer finds the server that serves uri: the one that listed it,
// else the first whose template matches it.
func (c *Catalog) ResourceServer(uri string) (string, bool) {
	if r, ok := c.resources[uri]; ok {
		return r.Server, true
	}
	for _, t := range c.Templates {
		if _, _, inst := config.SplitInstance(t.Server); !inst && t.Matches(uri) {
			return t.Server, true // an instance's are read through ReadResourceFrom
		}
	}
	return "", false
}

// Matches reports whether uri is an instance of the template.
func (t *Template) Matches(uri string) bool {
	return t.matcher != nil && t.matcher.Regexp().MatchString(uri)
}

// ListedTools returns the tools within the cap, in catalog order.
func (c *Catalog) ListedTools() []*Tool {
	var out []*Tool
	for _, t := range c.Tools {
		if t.Listed {
			out = append(out, t)
		}
	}
	return out
}

// Search returns up to limit tools whose name or description matches every
// word of query (case-insensitive), best matches (name hits) first. An empty
// query matches every tool.
func (c *Catalog) Search(query string, limit int) []*Tool { return SearchTools(c.Tools, query, limit) }

// SearchTools is Search over any list of tools (an agent's view).
func SearchTools(tools []*Tool, query string, limit int) []*Tool {
	words := strings.Fields(strings.ToLower(query))
	type hit struct {
		t     *Tool
		score int
	}
	var hits []hit
	for _, t := range tools {
		name := strings.ToLower(t.Name)
		desc := strings.ToLower(t.Def.Description)
		score, ok := 0, true
		for _, w := range words {
			switch {
			case strings.Contains(name, w):
				score += 2
			case strings.Contains(desc, w):
				score++
			default:
				ok = false
			}
		}
		if ok {
			hits = append(hits, hit{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]*Tool, len(hits))
	for i, h := range hits {
		out[i] = h.t
	}
	return out
}

// ToolAllowed applies allowed/denied glob patterns to a tool name: a
// denied match always hides; a non-empty allow list hides everything else.
func ToolAllowed(name string, allowed, denied []string) bool {
	return toolAllowed(name, allowed, denied)
}

func toolAllowed(name string, allowed, denied []string) bool {
	for _, p := range denied {
		if ok, _ := path.Match(p, name); ok {
			return false
		}
	}
	if len(allowed) == 0 {
		return true
	}
	for _, p := range allowed {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
