package daemon

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/faceauth"
	"github.com/weft-dev/weft/internal/gateway"
)

// agentOfIdentity maps the verified JWT of a request to its agent through
// gateway.auth.agent_claim and gateway.auth.agents; nil when they are not
// set. The face's static token carries no identity: it is not mapped.
func agentOfIdentity(a *config.GatewayAuth) gateway.AgentOfRequest {
	if a == nil || a.AgentClaim == "" {
		return nil
	}
	ids := faceauth.Identities{Claim: a.AgentClaim, Agents: a.Agents}
	return func(r *http.Request) (string, bool, error) {
		info := auth.TokenInfoFromContext(r.Context())
		if info == nil {
			return "", false, nil
		}
		agent, err := ids.AgentOf(info)
		return agent, true, err
	}
}
