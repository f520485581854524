package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Agents: named views of weft. An agent picks the global servers it uses,
// may add servers of its own or override global ones, filters the tools it
// sees and carries its own limits and model settings. It is configured as an
// [agents.NAME] table in weft.toml or as a file of its own,
// AGENTS_DIR/NAME/weft.toml, holding the same keys at its top level.

// DefaultAgentsDir is the agents directory, relative to weft.toml's, when
// [gateway] agents_dir is not set: ~/.weft/agents for ~/.weft/weft.toml.
const DefaultAgentsDir = "agents"

// AgentFileName is the name of an agent's own config file in its directory.
const AgentFileName = "weft.toml"

// NoDefaultAgent as [gateway] default_agent closes /mcp: every client must
// connect as a named agent.
const NoDefaultAgent = "none"

// agentFile is the shape of an [agents.NAME] table and of an agent's file.
type agentFile struct {
	// Servers names the global servers the agent uses (nil: every one).
	Servers []string `toml:"servers"`
	// MCPServers holds servers only this agent has, and partial overrides
	// of global servers of the same name.
	MCPServers   map[string]*Server `toml:"mcp_servers"`
	AllowedTools []string           `toml:"allowed_tools"`
	DeniedTools  []string           `toml:"denied_tools"`
	MaxTools     int                `toml:"max_tools"`
	Autonomy     string             `toml:"autonomy"`
	LLM          LLM                `toml:"llm"`
	Router       Router             `toml:"router"`
	Delegation   Delegation         `toml:"delegation"`
	Token        string             `toml:"token"`
	TokenEnv     string             `toml:"token_env"`
}

// AgentSpec is one agent as weft runs it: its keys with every default and
// inherited value filled in.
type AgentSpec struct {
	Name string
	// Source is the file the agent is defined in (weft.toml or its own).
	Source string
	// Uses maps each server name the agent sees to where its tools come
	// from, by that name.
	Uses map[string]*AgentServer
	// AllowedTools and DeniedTools are globs over the names the agent sees.
	AllowedTools, DeniedTools []string
	// MaxTools caps the tools listed to the agent's clients (the rest are
	// reachable through weft__search_tools).
	MaxTools int
	// Autonomy governs mcp_manage for the agent's clients.
	Autonomy string
	// Agent holds the [llm], [router.planning] and prices the agent runs
	// with; Delegation its [delegation] (global values where it is silent).
	Agent      Agent
	Delegation Delegation
	// Token is the bearer token of the agent's HTTP face (literal token, or
	// read from TokenEnv at start): a request with it is served only as
	// this agent.
	Token, TokenEnv string
	// Own holds the agent's [mcp_servers] entries as written, for editing.
	Own map[string]*Server
}

// AgentServer is one server of an agent's view.
type AgentServer struct {
	// Instance is the hub server the tools come from: the global server's
	// name when the connection is shared, else the agent's own instance
	// (InstanceName(server, agent)).
	Instance string
	// Namespace is what the agent sees the server's items under.
	Namespace string
	// AllowedTools and DeniedTools filter the server's own tool names for
	// this agent only (from an override that shares the connection).
	AllowedTools, DeniedTools []string
	// Config is the configuration of the instance (nil for a shared global
	// server: the global entry runs it).
	Config *Server
}

// Shared reports whether the server is the global connection.
func (s *AgentServer) Shared() bool { return s.Config == nil }

// instanceSep separates a server's name from its owner in the name of a
// separate instance; ValidName refuses it, so no configured server can
// take an instance's name.
const instanceSep = "@"

// InstanceName is the hub name of a separate instance of server run for
// owner (an agent, or another owner of per-owner instances).
func InstanceName(server, owner string) string { return server + instanceSep + owner }

// SplitInstance is the inverse of InstanceName; ok is false for the name
// of a configured server.
func SplitInstance(name string) (server, owner string, ok bool) {
	return strings.Cut(name, instanceSep)
}

// AgentNames lists the configured agents, sorted.
func (c *Config) AgentNames() []string {
	return slices.Sorted(maps.Keys(c.Agents))
}

// HubServers is every server the hub runs for c: the configured servers
// and each agent's separate instances, by hub name.
func (c *Config) HubServers() map[string]*Server {
	out := make(map[string]*Server, len(c.Servers))
	maps.Copy(out, c.Servers)
	for _, a := range c.Agents {
		for _, u := range a.Uses {
			if u.Config != nil {
				out[u.Instance] = u.Config
			}
		}
	}
	return out
}

// AgentsDirectory is where agents' own files live: [gateway] agents_dir
// (relative to weft.toml's directory), else DefaultAgentsDir there.
func (c *Config) AgentsDirectory() string {
	dir := c.Gateway.AgentsDir
	if dir == "" {
		dir = DefaultAgentsDir
	}
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(filepath.Dir(c.Path), dir)
}

// AgentFile is the path of agent name's own file.
func (c *Config) AgentFile(name string) string {
	return filepath.Join(c.AgentsDirectory(), name, AgentFileName)
}

// loadAgents reads the agents of the [agents] tables and of the agents
// directory, and resolves each against the global servers. It runs after
// the global servers are known (.mcp.json merged).
func (c *Config) loadAgents(tables map[string]*agentFile) error {
	files, err := c.readAgentFiles()
	if err != nil {
		return err
	}
	c.Agents = map[string]*AgentSpec{}
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		if f, dup := files[name]; dup {
			return invalidf("%s: agent %q is defined both in [agents.%s] and in %s; keep one", c.Path, name, name, f.src)
		}
		if err := c.addAgent(name, c.Path, tables[name]); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := c.addAgent(name, files[name].src, files[name].af); err != nil {
			return err
		}
	}
	if d := c.Gateway.DefaultAgent; d != "" && d != NoDefaultAgent && c.Agents[d] == nil {
		return invalidf("%s: gateway.default_agent names %q, which is not an agent; name one of [agents] or %q", c.Path, d, NoDefaultAgent)
	}
	return nil
}

type agentSource struct {
	src string
	af  *agentFile
}

// readAgentFiles decodes AGENTS_DIR/*/weft.toml; a missing directory means
// no agent files.
func (c *Config) readAgentFiles() (map[string]agentSource, error) {
	dir := c.AgentsDirectory()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || c.Path == "" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the agents directory %s: %v; check its permissions or set gateway.agents_dir", dir, pathErr(err))
	}
	out := map[string]agentSource{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		file := filepath.Join(dir, e.Name(), AgentFileName)
		data, err := c.readAgentFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read agent file %s: %v; check its permissions", file, pathErr(err))
		}
		af, err := decodeAgentFile(file, data)
		if err != nil {
			return nil, err
		}
		out[e.Name()] = agentSource{src: file, af: af}
	}
	return out, nil
}

// readAgentFile reads an agent's file, or the content a change is about to
// write to it.
func (c *Config) readAgentFile(file string) ([]byte, error) {
	if data, ok := c.overlay[file]; ok {
		return data, nil
	}
	return os.ReadFile(file)
}

// decodeAgentFile decodes the content of an agent's own file; unknown keys
// are named with the keys the file accepts.
func decodeAgentFile(file string, data []byte) (*agentFile, error) {
	var af agentFile
	if err := decodeStrict(data, &af); err != nil {
		return nil, decodeErrorIn(reflect.TypeOf(agentFile{}), file, err)
	}
	return &af, nil
}

// addAgent validates one agent and resolves it against the global servers.
func (c *Config) addAgent(name, src string, af *agentFile) error {
	if af == nil {
		af = &agentFile{}
	}
	bad := func(key, format string, args ...any) error {
		return invalidf("%s: agent %q: %s: %s", src, name, key, fmt.Sprintf(format, args...))
	}
	if !ValidName(name) {
		return invalidf("%s: agent %q: the name must be 1-64 characters of A-Z a-z 0-9 _ -; rename it", src, name)
	}
	a := &AgentSpec{Name: name, Source: src, Uses: map[string]*AgentServer{}, AllowedTools: af.AllowedTools,
		DeniedTools: af.DeniedTools, MaxTools: c.Limits.MaxTools, Autonomy: c.Security.Autonomy,
		Token: af.Token, TokenEnv: af.TokenEnv, Own: af.MCPServers}
	if err := checkGlobs(af.AllowedTools, af.DeniedTools); err != "" {
		return bad(err, "not a valid glob; use * ? and [...] only, with brackets closed")
	}
	switch {
	case af.MaxTools < 0:
		return bad("max_tools", "%d; use a positive number (0 means limits.max_tools)", af.MaxTools)
	case af.MaxTools > 0:
		a.MaxTools = af.MaxTools
	}
	switch af.Autonomy {
	case "":
	case AutonomyReadOnly, AutonomySupervised, AutonomyFull:
		a.Autonomy = af.Autonomy
	default:
		return bad("autonomy", "%q; use read_only, supervised or full", af.Autonomy)
	}
	if af.Token != "" && af.TokenEnv != "" {
		return bad("token", "both token and token_env are set; keep one")
	}
	if err := c.agentSettings(a, af, src); err != nil {
		return fmt.Errorf("agent %q: %w", name, err)
	}
	if err := c.agentServers(a, af, bad); err != nil {
		return err
	}
	c.Agents[name] = a
	return nil
}

// checkGlobs returns the key of the first invalid pattern, or "".
func checkGlobs(allowed, denied []string) string {
	for i, pats := range [][]string{allowed, denied} {
		for _, p := range pats {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				return [...]string{"allowed_tools", "denied_tools"}[i] + " " + fmt.Sprintf("%q", p)
			}
		}
	}
	return ""
}

// agentSettings fills the agent's [llm], [router.planning] and
// [delegation] over the global ones.
func (c *Config) agentSettings(a *AgentSpec, af *agentFile, src string) error {
	tmp := &Config{Agent: c.Agent}
	l, g := af.LLM, c.Agent.LLM
	setIf(&l.Provider, g.Provider, l.Provider == "")
	setIf(&l.Model, g.Model, l.Model == "")
	setIf(&l.BaseURL, g.BaseURL, l.BaseURL == "")
	setIf(&l.APIKeyEnv, g.APIKeyEnv, l.APIKeyEnv == "")
	setIf(&l.MaxTokens, g.MaxTokens, l.MaxTokens == 0)
	setIf(&l.MaxRetries, g.MaxRetries, l.MaxRetries == 0)
	if err := applyAgent(tmp, &fileConfig{LLM: l, Router: af.Router}, src); err != nil {
		return err
	}
	if err := checkDelegation(af.Delegation, src, "agents."+a.Name+".delegation"); err != nil {
		return err
	}
	a.Agent, a.Delegation = tmp.Agent, c.Delegation.Merge(af.Delegation)
	return nil
}

// agentServers resolves the servers of the agent's view: the global ones
// it names (all when it names none), then its own entries, each either an
// agent-only server or an override of the global server of that name.
func (c *Config) agentServers(a *AgentSpec, af *agentFile, bad func(key, format string, args ...any) error) error {
	use := af.Servers
	if use == nil {
		for _, n := range c.Names() {
			if c.Servers[n].IsEnabled() {
				use = append(use, n)
			}
		}
	}
	for _, n := range use {
		g, ok := c.Servers[n]
		if !ok {
			if _, own := af.MCPServers[n]; own {
				continue
			}
			return bad("servers", "%q is not a configured server; add it to [tools.mcp_servers] or the agent's [mcp_servers], or remove it", n)
		}
		a.Uses[n] = &AgentServer{Instance: n, Namespace: g.Namespace()}
	}
	for _, n := range slices.Sorted(maps.Keys(af.MCPServers)) {
		u, err := c.agentServer(a.Name, n, af.MCPServers[n])
		if err != nil {
			return bad("mcp_servers."+n, "%v", strings.TrimPrefix(err.Error(), fmt.Sprintf("server %q: ", n)))
		}
		if u != nil {
			a.Uses[n] = u
		}
	}
	return nil
}

// agentServer resolves one of the agent's own entries. An override that
// launches the server as the global entry does (filters aside) shares the
// global connection; any other runs as the agent's own instance. It
// returns nil for an entry that disables the server for this agent.
func (c *Config) agentServer(agent, name string, own *Server) (*AgentServer, error) {
	if own == nil {
		own = &Server{}
	}
	s := own.Clone()
	s.Name = name
	if g, ok := c.Servers[name]; ok {
		s = mergeServer(g, own)
	} else if s.Target == "" {
		return nil, fmt.Errorf("target is missing: give the command or URL of this agent-only server, or name a configured server")
	}
	s.TimeoutMS = defaultTimeout(s.TimeoutMS)
	if s.Type == "" {
		s.Type = inferType(s.Target)
	}
	if _, err := s.Validate(ValidateOptions{}); err != nil {
		return nil, err
	}
	if !s.IsEnabled() {
		return nil, nil
	}
	u := &AgentServer{Instance: name, Namespace: s.Namespace(), AllowedTools: own.AllowedTools, DeniedTools: own.DeniedTools}
	if g, ok := c.Servers[name]; ok && launchFingerprint(g) == launchFingerprint(s) {
		return u, nil
	}
	inst := s.Clone()
	inst.Name = InstanceName(name, agent)
	inst.Prefix = nil // the view renames the instance's items to Namespace
	inst.Enabled = nil
	u.Instance, u.Config = inst.Name, inst
	return u, nil
}

// launchFingerprint is Fingerprint without what an agent's view applies by
// itself (tool filters, prefix, enabled): equal launch fingerprints share
// one connection.
func launchFingerprint(s *Server) string {
	c := s.Clone()
	c.AllowedTools, c.DeniedTools, c.Prefix, c.Enabled = nil, nil, nil, nil
	return c.Fingerprint()
}

// mergeServer lays an agent's partial entry over the global server g: set
// fields replace g's, env and headers are merged key by key.
func mergeServer(g, own *Server) *Server {
	s := g.Clone()
	if own.Target != "" {
		s.Target, s.Type = own.Target, own.Type
	}
	setIf(&s.Type, own.Type, own.Type != "")
	setIf(&s.Args, slices.Clone(own.Args), own.Args != nil)
	setIf(&s.Cwd, own.Cwd, own.Cwd != "")
	setIf(&s.TimeoutMS, own.TimeoutMS, own.TimeoutMS != 0)
	setIf(&s.Enabled, own.Enabled, own.Enabled != nil)
	setIf(&s.Prefix, own.Prefix, own.Prefix != nil)
	setIf(&s.ProtocolVersion, own.ProtocolVersion, own.ProtocolVersion != "")
	setIf(&s.InheritEnv, true, own.InheritEnv)
	setIf(&s.MaxConcurrentCalls, own.MaxConcurrentCalls, own.MaxConcurrentCalls != 0)
	setIf(&s.FailureThreshold, own.FailureThreshold, own.FailureThreshold != 0)
	setIf(&s.ResetTimeout, own.ResetTimeout, own.ResetTimeout != 0)
	setIf(&s.OAuth, own.OAuth.clone(), own.OAuth != nil)
	s.AllowedTools, s.DeniedTools = g.AllowedTools, g.DeniedTools
	s.Env = mergeMap(s.Env, own.Env)
	s.Headers = mergeMap(s.Headers, own.Headers)
	return s
}

func mergeMap(base, over map[string]string) map[string]string {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// AgentTokenValue is the agent's bearer token: the literal token, or the
// value of the variable token_env names ("" when none is set).
func (a *AgentSpec) AgentTokenValue(getenv func(string) string) string {
	if a.TokenEnv != "" {
		return getenv(a.TokenEnv)
	}
	return a.Token
}

// ServerNames lists the names the agent sees servers under, sorted.
func (a *AgentSpec) ServerNames() []string {
	names := slices.Collect(maps.Keys(a.Uses))
	sort.Strings(names)
	return names
}

// ErrNoAgent is matched by the error of a name that is not a configured
// agent.
var ErrNoAgent = errors.New("no such agent")

// NoAgentError says that name is not a configured agent, and where to
// configure it.
func (c *Config) NoAgentError(name string) error {
	return fmt.Errorf("%w %q: configure it as [agents.%s] in %s or in %s", ErrNoAgent, name, name, c.Path, c.AgentFile(name))
}
