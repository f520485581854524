package daemon

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"

	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// ErrNoAgent is the error of a name that is not a configured agent.
var ErrNoAgent = config.ErrNoAgent

// agentFaces keeps one MCP face per configured agent in step with the
// config (gateway.Agents). A face, once made, is kept for the daemon's
// life: the hub's catalog listeners cannot be removed, and an agent that
// comes back gets its face back. A removed agent's face sees nothing and
// its sessions are closed.
type agentFaces struct {
	base gateway.Options // the default face's options, without its routes
	hub  *hub.Hub
	// manager makes the mcp_manage Manager of an agent's face.
	manager func(agent string) gateway.Manager
	// delegate makes the weft__delegate Delegator of an agent's face (nil:
	// delegation unavailable there).
	delegate func(agent string) gateway.Delegator
	// plans makes the weft__plan_* backend of an agent's face, which runs
	// plans within its view (nil: plans unavailable there).
	plans func(agent string) gateway.Plans

	mu     sync.Mutex
	faces  map[string]*gateway.Gateway // every face made, by agent
	specs  map[string]*config.AgentSpec
	tokens map[string]string // bearer token → agent
	def    string
}

func newAgentFaces(h *hub.Hub, base gateway.Options, manager func(string) gateway.Manager) *agentFaces {
	base.Routes, base.Health, base.Agents = nil, gateway.HealthOptions{}, nil
	// Plans and delegation run as the agent (plans, delegate).
	base.Plans, base.Delegate = nil, nil
	base.Manage.Manager = nil
	return &agentFaces{base: base, hub: h, manager: manager, faces: map[string]*gateway.Gateway{}, specs: map[string]*config.AgentSpec{}}
}

// apply brings the faces in line with cfg: new agents get a face, changed
// ones a new view (only their own clients hear of it), removed ones an
// empty view and their sessions closed.
func (a *agentFaces) apply(cfg *config.Config) {
	a.mu.Lock()
	defer a.mu.Unlock()
	tokens := map[string]string{}
	for _, name := range cfg.AgentNames() {
		spec := cfg.Agents[name]
		if tok := spec.AgentTokenValue(os.Getenv); tok != "" {
			tokens[tok] = name
		}
		view := agentview.New(spec, cfg.Gateway.Separator, gateway.BuiltinNames)
		face, ok := a.faces[name]
		switch {
		case !ok:
			opts := a.base
			opts.View = view
			opts.Manage.Manager = a.manager(name)
			if a.delegate != nil {
				opts.Delegate = a.delegate(name)
			}
			if a.plans != nil {
				opts.Plans = a.plans(name)
			}
			a.faces[name] = gateway.New(a.hub, opts)
		case a.specs[name] == nil || !sameView(a.specs[name], spec):
			face.SetView(view)
		}
	}
	for name, face := range a.faces {
		if cfg.Agents[name] == nil && a.specs[name] != nil {
			face.SetView(agentview.New(&config.AgentSpec{Name: name}, cfg.Gateway.Separator, nil))
			face.CloseSessions()
		}
	}
	a.specs = maps.Clone(cfg.Agents)
	a.tokens, a.def = tokens, cfg.Gateway.DefaultAgent
}

// sameView reports whether two specs of an agent make the same view.
func sameView(x, y *config.AgentSpec) bool {
	if x.MaxTools != y.MaxTools || !slices.Equal(x.AllowedTools, y.AllowedTools) || !slices.Equal(x.DeniedTools, y.DeniedTools) ||
		len(x.Uses) != len(y.Uses) {
		return false
	}
	for n, u := range x.Uses {
		v, ok := y.Uses[n]
		if !ok || u.Instance != v.Instance || u.Namespace != v.Namespace ||
			!slices.Equal(u.AllowedTools, v.AllowedTools) || !slices.Equal(u.DeniedTools, v.DeniedTools) {
			return false
		}
	}
	return true
}

// Names implements gateway.Agents.
func (a *agentFaces) Names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Sorted(maps.Keys(a.specs))
}

// Face implements gateway.Agents.
func (a *agentFaces) Face(name string) (*gateway.Gateway, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.specs[name] == nil {
		return nil, false
	}
	return a.faces[name], true
}

// Token implements gateway.Agents.
func (a *agentFaces) Token(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for tok, owner := range a.tokens {
		if owner == name {
			return tok
		}
	}
	return ""
}

// TokenOwner implements gateway.Agents.
func (a *agentFaces) TokenOwner(token string) (string, bool) {
	if token == "" {
		return "", false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	name, ok := a.tokens[token]
	return name, ok
}

// Default implements gateway.Agents.
func (a *agentFaces) Default() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.def
}

// AgentFace is the MCP face of the named agent; "" is the default face
// (/mcp and a plain `weft mcp-server`), which is an agent's face when
// [gateway] default_agent names one.
func (d *Daemon) AgentFace(name string) (*gateway.Gateway, error) {
	if name == "" {
		switch def := d.agents.Default(); def {
		case "":
			return d.gw, nil
		case config.NoDefaultAgent:
			return nil, fmt.Errorf("gateway.default_agent is %q: name the agent to serve with --agent NAME", def)
		default:
			name = def
		}
	}
	face, ok := d.agents.Face(name)
	if !ok {
		return nil, d.Config().NoAgentError(name)
	}
	return face, nil
}
