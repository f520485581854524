package delegate

import (
	"cmp"
	"fmt"
)

// withDefaults fills the zero fields of req from the Runner's Config. An
// empty but non-nil ExcludedTools is kept: it clears the Runner's list.
func (r *Runner) withDefaults(req Request) Request {
	c := &r.cfg
	req.Command = cmp.Or(req.Command, c.Command)
	req.Model = cmp.Or(req.Model, c.Model)
	req.MaxTurns = cmp.Or(max(req.MaxTurns, 0), c.MaxTurns)
	req.MaxTokens = cmp.Or(max(req.MaxTokens, 0), c.MaxTokens)
	req.Timeout = cmp.Or(max(req.Timeout, 0), c.Timeout)
	req.AllowedTools = orList(req.AllowedTools, c.AllowedTools)
	req.Chain = orList(req.Chain, c.Chain)
	if req.ExcludedTools == nil {
		req.ExcludedTools = c.ExcludedTools
	}
	return req
}

// orList is list, or def when list is empty.
func orList(list, def []string) []string {
	if len(list) == 0 {
		return def
	}
	return list
}

// checkChain refuses a fallback chain naming an unknown delegate.
func checkChain(chain []string) error {
	for _, d := range chain {
		if d != Claude && d != Agent {
			return fmt.Errorf("delegation fallback %q is unknown; use %q or %q", d, Claude, Agent)
		}
	}
	return nil
}
