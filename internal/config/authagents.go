package config

import (
	"maps"
	"slices"
	"strings"
)

// validateAgentClaim checks that agent_claim and agents come together.
func (a *GatewayAuth) validateAgentClaim(path string) error {
	switch {
	case a.AgentClaim == "" && len(a.Agents) > 0:
		return invalidf("%s: gateway.auth.agents needs agent_claim: name the token claim whose values it lists (client_id, azp, sub, another claim, or \"scope\")", path)
	case a.AgentClaim != "" && len(a.Agents) == 0:
		return invalidf("%s: gateway.auth.agent_claim is %q but gateway.auth.agents is empty; map each %s value to an agent, e.g. \"my-client\" = \"coder\"", path, a.AgentClaim, a.AgentClaim)
	case a.AgentClaim != strings.TrimSpace(a.AgentClaim):
		return invalidf("%s: gateway.auth.agent_claim %q has spaces around it; name the claim alone", path, a.AgentClaim)
	}
	return nil
}

// checkAuthAgents checks that gateway.auth.agents names configured agents
// only.
func (c *Config) checkAuthAgents() error {
	a := c.Gateway.Auth
	if a == nil {
		return nil
	}
	for _, id := range slices.Sorted(maps.Keys(a.Agents)) {
		if name := a.Agents[id]; c.Agents[name] == nil {
			return invalidf("%s: gateway.auth.agents maps %q to %q, which is not an agent; name one of [agents] or add [agents.%s]", c.Path, id, name, name)
		}
	}
	return nil
}
