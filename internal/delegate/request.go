package delegate

import "fmt"

// withDefaults fills the zero fields of req from the Runner's Config.
func (r *Runner) withDefaults(req Request) Request {
	c := &r.cfg
	if len(req.AllowedTools) == 0 {
		req.AllowedTools = c.AllowedTools
	}
	if req.MaxTurns <= 0 {
		req.MaxTurns = c.MaxTurns
	}
	if req.Command == "" {
		req.Command = c.Command
	}
	if len(req.Chain) == 0 {
		req.Chain = c.Chain
	}
	if req.Timeout <= 0 {
		req.Timeout = c.Timeout
	}
	if req.Model == "" {
		req.Model = c.Model
	}
	if req.ExcludedTools == nil {
		req.ExcludedTools = c.ExcludedTools
	}
	if req.MaxTokens <= 0 {
		req.MaxTokens = c.MaxTokens
	}
	return req
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
