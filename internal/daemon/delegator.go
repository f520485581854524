package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
)

// delegator serves weft__delegate over a lazily built runner, so a face
// whose config cannot delegate still starts. Its "agent" delegate runs over
// the daemon's own hub: no second hub, no second process per upstream.
type delegator struct {
	d   *Daemon
	cfg *config.Config // the config the daemon started with

	once sync.Once // one runner, so its slots and breaker span every call
	r    *delegate.Runner
	err  error
}

var _ gateway.Delegator = (*delegator)(nil)

func (g *delegator) runner() (*delegate.Runner, error) {
	g.once.Do(func() {
		rc := runnerConfig(g.cfg, g.d.depth, g.d.RunDelegateAgent)
		rc.ClaudeSpent = g.d.obs.spent
		g.r, g.err = delegate.New(rc)
	})
	return g.r, g.err
}

// Delegate runs one delegation for the face, as the default agent.
func (g *delegator) Delegate(ctx context.Context, in gateway.DelegateArgs, progress func(string)) (gateway.DelegateResult, error) {
	return g.delegateAs(ctx, in, "", config.Delegation{}, progress)
}

// request is the request of one delegation under the config as it is now:
// an agent's settings were merged over the current [delegation] when the
// config loaded, so a key a reload cleared stays cleared (merging over the
// [delegation] weft started with would bring it back).
func (g *delegator) request(agent string, override config.Delegation, in gateway.DelegateArgs) delegate.Request {
	return delegationRequest(g.d.Config().Delegation, agent, override, in)
}

// delegateAs runs one delegation as agent with override merged over
// [delegation] (delegate_as.go).
func (g *delegator) delegateAs(ctx context.Context, in gateway.DelegateArgs, agent string, override config.Delegation, progress func(string)) (gateway.DelegateResult, error) {
	r, err := g.runner()
	if err != nil {
		return gateway.DelegateResult{}, err
	}
	res, err := r.Run(ctx, g.request(agent, override, in), func(e delegate.Event) { progress(e.String()) })
	if err != nil {
		return gateway.DelegateResult{}, err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return gateway.DelegateResult{}, fmt.Errorf("encode the delegation's result: %w", err)
	}
	return gateway.DelegateResult{Answer: res.Answer, Data: b}, nil
}
