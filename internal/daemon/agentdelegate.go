package daemon

import (
	"context"
	"fmt"

	"github.com/weft-dev/weft/internal/gateway"
)

// agentDelegator serves weft__delegate on the face of one agent: every
// delegation runs as that agent, with its [agents.NAME.delegation] as the
// config holds it at the time of the call. The agent comes from the face
// the session is connected to, never from the client's arguments.
type agentDelegator struct {
	d     *Daemon
	agent string
}

var _ gateway.Delegator = agentDelegator{}

// Delegate implements gateway.Delegator.
func (a agentDelegator) Delegate(ctx context.Context, in gateway.DelegateArgs, progress func(string)) (gateway.DelegateResult, error) {
	spec := a.d.Config().Agents[a.agent]
	if spec == nil {
		return gateway.DelegateResult{}, fmt.Errorf("%w %q: it was removed from the config; reconnect to another agent", ErrNoAgent, a.agent)
	}
	return a.d.DelegateAs(ctx, in, a.agent, spec.Delegation, progress)
}
