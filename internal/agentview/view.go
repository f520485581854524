// Package agentview is what one agent sees of the hub's catalog: the tools,
// prompts and resources of its servers, under the names it knows them by,
// filtered and capped by its own limits. Every lookup of a name a client of
// the agent sends goes through Resolve, so nothing outside the view can be
// reached or learnt of.
package agentview

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/naming"
)

// View is one agent's view. It is immutable; a config change makes a new one.
type View struct {
	name     string
	sep      string
	maxTools int // < 0: the hub's own listing
	// servers maps each hub server in the view to how the agent sees it;
	// nil for the view of everything (every configured server, no
	// separate instances).
	servers         map[string]*config.AgentServer
	allowed, denied []string
	reserved        map[string]bool

	last atomic.Pointer[Snapshot] // the snapshot of the newest catalog seen
}

// Everything is the view of every configured server that the default face
// serves when no agent is named. maxTools < 0 keeps the hub's own listing.
func Everything(sep string, maxTools int) *View {
	return &View{sep: sep, maxTools: maxTools}
}

// New is the view of agent spec. reserved are weft's built-in tool names,
// which no renamed tool may take.
func New(spec *config.AgentSpec, sep string, reserved []string) *View {
	v := &View{name: spec.Name, sep: sep, maxTools: spec.MaxTools, servers: map[string]*config.AgentServer{},
		allowed: spec.AllowedTools, denied: spec.DeniedTools, reserved: map[string]bool{}}
	for _, u := range spec.Uses {
		v.servers[u.Instance] = u
	}
	for _, r := range reserved {
		v.reserved[r] = true
	}
	return v
}

// Name is the agent's name ("" for the view of everything).
func (v *View) Name() string { return v.name }

// IsAgent reports whether the view is a named agent's.
func (v *View) IsAgent() bool { return v != nil && v.name != "" }

// Snapshot is the view of one catalog. It never changes once made.
type Snapshot struct {
	// Tools, Prompts, Resources and Templates are what the agent sees; a
	// tool's and prompt's Name and Server are the agent's names for them.
	Tools     []*hub.Tool
	Prompts   []*hub.Prompt
	Resources []*hub.Resource
	Templates []*hub.Template

	cat     *hub.Catalog
	tools   map[string]string // name as seen → hub name
	prompts map[string]string
}

// Of returns the view of cat, made once per catalog.
func (v *View) Of(cat *hub.Catalog) *Snapshot {
	if s := v.last.Load(); s != nil && s.cat == cat {
		return s
	}
	s := v.build(cat)
	v.last.Store(s)
	return s
}

// ListedTools are the tools within the view's cap.
func (s *Snapshot) ListedTools() []*hub.Tool {
	if len(s.Tools) == 0 {
		return nil
	}
	out := make([]*hub.Tool, 0, len(s.Tools))
	for _, t := range s.Tools {
		if t.Listed {
			out = append(out, t)
		}
	}
	return out
}

// Search is the catalog's search over the view's tools.
func (s *Snapshot) Search(query string, limit int) []*hub.Tool {
	return hub.SearchTools(s.Tools, query, limit)
}

// server returns how the view sees hub server name; ok is false when it is
// outside the view.
func (v *View) server(name string) (u *config.AgentServer, ok bool) {
	if v.servers == nil {
		_, _, inst := config.SplitInstance(name)
		return nil, !inst
	}
	u, ok = v.servers[name]
	return u, ok
}

// seenAs is the name the agent knows a namespaced item of hub server u by.
func (v *View) seenAs(u *config.AgentServer, hubName, original string) string {
	if u == nil || u.Shared() && u.Namespace == u.Instance {
		return hubName
	}
	return naming.Join(u.Namespace, v.sep, original)
}

func (v *View) build(cat *hub.Catalog) *Snapshot {
	// Sized for every tool: most views keep most of the catalog, and
	// growing these one upstream's tools at a time was most of what a
	// view of 10,000 tools allocated.
	s := &Snapshot{cat: cat, tools: make(map[string]string, len(cat.Tools)), prompts: map[string]string{}}
	if len(cat.Tools) > 0 {
		s.Tools = make([]*hub.Tool, 0, len(cat.Tools))
	}
	for _, t := range cat.Tools {
		u, ok := v.server(t.Server)
		if !ok || (u != nil && !hub.ToolAllowed(t.Original, u.AllowedTools, u.DeniedTools)) {
			continue
		}
		name := v.seenAs(u, t.Name, t.Original)
		if _, dup := s.tools[name]; dup || v.reserved[name] || !hub.ToolAllowed(name, v.allowed, v.denied) {
			continue
		}
		s.tools[name] = t.Name
		s.Tools = append(s.Tools, v.renamedTool(t, u, name, len(s.Tools)))
	}
	for _, p := range cat.Prompts {
		u, ok := v.server(p.Server)
		if !ok {
			continue
		}
		name := v.seenAs(u, p.Name, p.Original)
		if _, dup := s.prompts[name]; dup {
			continue
		}
		s.prompts[name] = p.Name
		if name != p.Name || u != nil {
			def := *p.Def
			def.Name = name
			p = &hub.Prompt{Name: name, Server: seenServer(u, p.Server), Original: p.Original, Def: &def}
		}
		s.Prompts = append(s.Prompts, p)
	}
	for _, r := range cat.Resources {
		if _, ok := v.server(r.Server); ok {
			s.Resources = append(s.Resources, r)
		}
	}
	for _, t := range cat.Templates {
		if _, ok := v.server(t.Server); ok {
			s.Templates = append(s.Templates, t)
		}
	}
	return s
}

// renamedTool is t as the view shows it: its name as seen, its server as the
// agent names it, listed within the view's cap.
func (v *View) renamedTool(t *hub.Tool, u *config.AgentServer, name string, listedSoFar int) *hub.Tool {
	listed := t.Listed
	if v.maxTools >= 0 {
		listed = v.maxTools == 0 || listedSoFar < v.maxTools
	}
	if name == t.Name && listed == t.Listed && (u == nil || u.Instance == seenServer(u, t.Server)) {
		return t
	}
	c := *t
	c.Name, c.Server, c.Listed = name, seenServer(u, t.Server), listed
	if name != t.Name {
		def := *t.Def
		def.Name = name
		c.Def = &def
	}
	return &c
}

// seenServer is the name the agent knows hub server name by.
func seenServer(u *config.AgentServer, name string) string {
	if server, _, ok := config.SplitInstance(name); ok && u != nil {
		return server
	}
	return name
}

// ErrOutside is the error of a name outside an agent's view; it wraps the
// hub's unknown-item error of its kind, so that the face answers it as it
// answers a name nobody serves.
type ErrOutside struct {
	Agent, Kind, Name string
	kindErr           error
}

func (e *ErrOutside) Error() string {
	return fmt.Sprintf("unknown %s %q for agent %s", e.Kind, e.Name, e.Agent)
}

func (e *ErrOutside) Unwrap() error { return e.kindErr }

func (v *View) outside(kind, name string, kindErr error) error {
	if v.name == "" {
		return fmt.Errorf("%w %q", kindErr, name)
	}
	return &ErrOutside{Agent: v.name, Kind: kind, Name: name, kindErr: kindErr}
}

// Resolve maps a tool name a client of the view sends to the hub's name for
// it. A name in the namespace of a server of the view that is not (yet) in
// the catalog passes, so that a call can wait for a server still
// connecting; anything else outside the view is an *ErrOutside.
func (v *View) Resolve(cat *hub.Catalog, name string) (string, error) {
	if v.servers == nil { // everything: one lookup, no renaming
		if t, ok := cat.Tool(name); ok {
			if _, _, inst := config.SplitInstance(t.Server); inst {
				return "", v.outside("tool", name, hub.ErrUnknownTool)
			}
		}
		return name, nil
	}
	s := v.Of(cat)
	if hubName, ok := s.tools[name]; ok {
		return hubName, nil
	}
	if v.reserved[name] {
		return name, nil // weft's own tool, served by the face itself
	}
	if hubName, _, ok := v.pending(cat, name); ok {
		return hubName, nil
	}
	return "", v.outside("tool", name, hub.ErrUnknownTool)
}

// Pending names the hub server of the view that would serve tool name
// (as the agent knows it) and the name the agent knows the server by, when
// name is in the namespace of a server of the view that has not listed it:
// the caller can say why the server has not (it is disconnected, or still
// connecting). ok is false otherwise.
func (v *View) Pending(cat *hub.Catalog, name string) (server, seen string, ok bool) {
	if v.servers == nil {
		return "", "", false
	}
	_, inst, ok := v.pending(cat, name)
	if !ok {
		return "", "", false
	}
	return inst, seenServer(v.servers[inst], inst), true
}

// pending maps a name of a server of the view that has not listed it:
// what it will be called in the hub once the server is up, and that
// server's hub name.
func (v *View) pending(cat *hub.Catalog, name string) (hubName, server string, ok bool) {
	if !hub.ToolAllowed(name, v.allowed, v.denied) {
		return "", "", false
	}
	for inst, u := range v.servers {
		if u.Namespace == "" {
			continue
		}
		original, ok := strings.CutPrefix(name, u.Namespace+v.sep)
		if !ok || !hub.ToolAllowed(original, u.AllowedTools, u.DeniedTools) {
			continue
		}
		hubNS := inst
		if u.Shared() {
			hubNS = u.Namespace // a shared server's namespace is its own
		}
		hubName := naming.Join(hubNS, v.sep, original)
		if _, listed := cat.Tool(hubName); listed {
			return "", "", false // listed but filtered out of the view
		}
		return hubName, inst, true
	}
	return "", "", false
}

// Prompt maps a prompt name as seen to the hub's.
func (v *View) Prompt(cat *hub.Catalog, name string) (string, error) {
	if v.servers == nil {
		if p, ok := cat.Prompt(name); ok {
			if _, _, inst := config.SplitInstance(p.Server); inst {
				return "", v.outside("prompt", name, hub.ErrUnknownPrompt)
			}
		}
		return name, nil
	}
	if hubName, ok := v.Of(cat).prompts[name]; ok {
		return hubName, nil
	}
	return "", v.outside("prompt", name, hub.ErrUnknownPrompt)
}

// Resource returns the hub server of the view that serves uri (a resource
// it listed, or one of its templates, or an instance of one).
func (v *View) Resource(cat *hub.Catalog, uri string) (string, error) {
	s := v.Of(cat)
	for _, r := range s.Resources {
		if r.Def.URI == uri {
			return r.Server, nil
		}
	}
	for _, t := range s.Templates {
		if t.Def.URITemplate == uri || t.Matches(uri) {
			return t.Server, nil
		}
	}
	return "", v.outside("resource", uri, hub.ErrUnknownURI)
}

// Complete rewrites a completion request's reference to the hub's names,
// or says why the reference is outside the view. For a resource reference
// it also names the hub server of the view that serves it (its separate
// instance, if the agent has one); for a prompt, server is "" (the hub
// knows the prompt's server by its name).
func (v *View) Complete(cat *hub.Catalog, params *mcp.CompleteParams) (_ *mcp.CompleteParams, server string, err error) {
	if params == nil || params.Ref == nil {
		return params, "", nil
	}
	p, ref := *params, *params.Ref
	p.Ref = &ref
	switch ref.Type {
	case "ref/prompt":
		name, err := v.Prompt(cat, ref.Name)
		if err != nil {
			return nil, "", err
		}
		ref.Name = name
	case "ref/resource":
		if server, err = v.Resource(cat, ref.URI); err != nil {
			return nil, "", err
		}
	}
	return &p, server, nil
}

// Outside reports whether err says a name is outside an agent's view.
func Outside(err error) bool {
	var o *ErrOutside
	return errors.As(err, &o)
}

// ServerSeen returns the name the view shows hub server name under; ok is
// false when the server is outside the view.
func (v *View) ServerSeen(name string) (string, bool) {
	u, ok := v.server(name)
	if !ok {
		return "", false
	}
	return seenServer(u, name), true
}

// Servers lists the names the view shows its servers under, sorted; for
// the view of everything, hubNames without separate instances.
func (v *View) Servers(hubNames []string) []string {
	seen := map[string]bool{}
	if v.servers == nil {
		for _, n := range hubNames {
			if _, _, inst := config.SplitInstance(n); !inst {
				seen[n] = true
			}
		}
	}
	for inst, u := range v.servers {
		seen[seenServer(u, inst)] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// Offered counts the tools the view's servers offer in cat, before the
// view's own filters: what a listing shows as the total.
func (v *View) Offered(cat *hub.Catalog) int {
	n := 0
	for _, t := range cat.Tools {
		if _, ok := v.server(t.Server); ok {
			n++
		}
	}
	return n
}
