package faceauth

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// ScopeClaim as Identities.Claim selects the agent by the token's scopes.
const ScopeClaim = "scope"

// Identities say which agent a verified token acts as: the values of
// Claim in the token (a string, or each string of a list; for ScopeClaim,
// each scope) looked up in Agents.
type Identities struct {
	Claim  string
	Agents map[string]string // claim value → agent
}

// AgentOf names the agent the token info describes acts as, "" for none.
// A token whose values select two agents is an error: it must be issued
// for one.
func (id Identities) AgentOf(info *auth.TokenInfo) (string, error) {
	found := map[string]bool{}
	for _, v := range id.values(info) {
		if agent, ok := id.Agents[v]; ok {
			found[agent] = true
		}
	}
	switch names := slices.Sorted(maps.Keys(found)); len(names) {
	case 0:
		return "", nil
	case 1:
		return names[0], nil
	default:
		return "", fmt.Errorf("this token's %s selects agents %s; issue it for one agent", id.Claim, strings.Join(names, " and "))
	}
}

// values are the token's values of the claim.
func (id Identities) values(info *auth.TokenInfo) []string {
	if id.Claim == ScopeClaim {
		return info.Scopes
	}
	switch v := info.Extra[id.Claim].(type) {
	case string:
		return []string{v}
	case []any:
		return stringsIn(v)
	}
	return nil
}
