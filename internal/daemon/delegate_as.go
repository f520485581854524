package daemon

import (
	"context"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/delegate"
	"github.com/weft-dev/weft/internal/gateway"
)

// DelegateAs runs one delegation as agent ("": the default view of weft),
// with override (an agent's [agents.NAME.delegation]) merged over the
// current config's [delegation], field by field: a zero field of override
// keeps the global value. The delegated Claude Code's weft runs
// as that agent. Slots and the breaker are weft's, shared by every agent,
// so an override's max_concurrent, failure_threshold and reset_timeout do
// not apply.
func (d *Daemon) DelegateAs(ctx context.Context, in gateway.DelegateArgs, agent string, override config.Delegation, progress func(string)) (gateway.DelegateResult, error) {
	if progress == nil {
		progress = func(string) {}
	}
	ctx, end := d.obs.span(ctx, "delegation")
	res, err := d.del.delegateAs(ctx, in, agent, override, progress)
	end(err)
	return res, err
}

// delegationRequest is the request of one delegation: the caller's
// arguments first, then the merged [delegation] settings.
func delegationRequest(global config.Delegation, agent string, override config.Delegation, in gateway.DelegateArgs) delegate.Request {
	s := global.Merge(override)
	req := delegate.Request{Task: in.Task, AllowedTools: in.AllowedTools, MaxTurns: in.MaxTurns, Depth: in.Depth, Agent: agent,
		Command: s.ClaudeCommand, Chain: s.Fallback, Timeout: s.Timeout.Std(),
		Model: s.Model, ExcludedTools: s.ExcludedTools, MaxTokens: s.MaxTokens}
	if len(req.AllowedTools) == 0 {
		req.AllowedTools = s.AllowedTools
	}
	if req.MaxTurns <= 0 {
		req.MaxTurns = s.MaxTurns
	}
	return req
}
