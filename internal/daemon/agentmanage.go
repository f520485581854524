package daemon

import (
	"context"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
)

// agentManager is mcp_manage's Manager for a client of an agent: servers
// it adds go to that agent's own servers (its [agents.NAME] table, or its
// own file), under that agent's autonomy, through Change.
type agentManager struct {
	d    *Daemon
	name string
}

var _ gateway.Manager = agentManager{}

// spec is the agent's config as last applied.
func (m agentManager) spec() (*config.AgentSpec, error) {
	spec := m.d.Config().Agents[m.name]
	if spec == nil {
		return nil, fmt.Errorf("%w %q", ErrNoAgent, m.name)
	}
	return spec, nil
}

// Config is the config with the agent's autonomy, and its own servers as
// the servers mcp_manage checks names against.
func (m agentManager) Config() *config.Config {
	cfg := *m.d.Config()
	if spec := cfg.Agents[m.name]; spec != nil {
		cfg.Security.Autonomy = spec.Autonomy
		cfg.Servers = map[string]*config.Server{}
		for name, s := range spec.Own {
			if s != nil {
				cfg.Servers[name] = s
			}
		}
	}
	return &cfg
}

func (m agentManager) ConfigHash() string { return m.d.ConfigHash() }

// AddServer records s as one of the agent's own servers and connects it
// (as the agent's instance, or shared when it launches a global server as
// the global entry does).
func (m agentManager) AddServer(ctx context.Context, s *config.Server, o gateway.ChangeOptions) (gateway.ChangeResult, error) {
	spec, err := m.spec()
	if err != nil {
		return gateway.ChangeResult{}, err
	}
	s = s.Clone()
	inFile := spec.Source != m.d.path
	edit := func(data []byte) ([]byte, error) {
		return config.AddAgentServerTo(data, spec.Source, m.name, s, inFile)
	}
	e := Edit{IfMatch: o.IfMatch, Source: "agent " + m.name}
	if inFile {
		e.AgentFile = &config.FileEdit{Path: spec.Source, Edit: edit}
	} else {
		e.File = edit
	}
	instance := config.InstanceName(s.Name, m.name)
	if !o.NoVerify {
		e.Verify = []string{instance}
	}
	res, err := m.d.Change(ctx, e)
	if err != nil {
		return gateway.ChangeResult{}, err
	}
	if u := m.d.Config().Agents[m.name].Uses[s.Name]; u != nil {
		instance = u.Instance
	}
	st, _ := m.d.hub.Get(instance)
	st.Name = s.Name
	return gateway.ChangeResult{Status: st, Hash: res.Hash}, nil
}

// EnableServer is not offered to an agent: its servers are enabled by
// its config.
func (m agentManager) EnableServer(context.Context, string) (gateway.ChangeResult, error) {
	return gateway.ChangeResult{}, errAgentEdit(m.name)
}

// RemoveServer is not offered to an agent yet: its servers are removed by
// editing its config.
func (m agentManager) RemoveServer(context.Context, string, gateway.ChangeOptions) (gateway.ChangeResult, error) {
	return gateway.ChangeResult{}, errAgentEdit(m.name)
}

func errAgentEdit(name string) error {
	return errors.New("an agent's client may only add servers; edit agent " + name + "'s config to change the others (`weft agents show " + name + "` names the file)")
}
