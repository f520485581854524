package config

import "strings"

// checkDelegation validates a [delegation] table; table names it in the
// errors ("delegation", or an agent's "agents.NAME.delegation").
func checkDelegation(d Delegation, path, table string) error {
	if d.MaxTurns < 0 || d.MaxConcurrent < 0 || d.FailureThreshold < 0 {
		return invalidf("%s: %s.max_turns, max_concurrent and failure_threshold must be positive (0 means the default)", path, table)
	}
	if d.MaxTurns > 0 && d.MaxTurns < delegationMinTurns {
		return invalidf("%s: %s.max_turns is %d; Claude Code needs at least %d", path, table, d.MaxTurns, delegationMinTurns)
	}
	for _, f := range d.Fallback {
		if f != delegateClaude && f != delegateAgnt {
			return invalidf("%s: %s.fallback names %q; use %q and/or %q", path, table, f, delegateClaude, delegateAgnt)
		}
	}
	if d.MaxTokens < 0 {
		return invalidf("%s: %s.max_tokens is %d; use a positive number of tokens (0 means Claude Code's default)", path, table, d.MaxTokens)
	}
	if d.Model != strings.TrimSpace(d.Model) || strings.HasPrefix(d.Model, "-") {
		return invalidf("%s: %s.model is %q; name a model such as \"sonnet\" or \"claude-sonnet-4-5\"", path, table, d.Model)
	}
	for _, p := range d.ExcludedTools {
		if strings.TrimSpace(p) == "" || strings.Contains(p, ",") {
			return invalidf("%s: %s.excluded_tools has %q; give one Claude Code tool pattern per entry, e.g. \"Bash\" or \"mcp__weft__fake__echo\"", path, table, p)
		}
	}
	return nil
}

// Merge returns d with every field that over sets (non-zero) replaced by
// over's: an agent's [agents.NAME.delegation] over the global
// [delegation]. A zero field of over keeps d's value.
func (d Delegation) Merge(over Delegation) Delegation {
	setIf(&d.ClaudeCommand, over.ClaudeCommand, over.ClaudeCommand != "")
	setIf(&d.Fallback, over.Fallback, over.Fallback != nil)
	setIf(&d.AllowedTools, over.AllowedTools, over.AllowedTools != nil)
	setIf(&d.MaxTurns, over.MaxTurns, over.MaxTurns > 0)
	setIf(&d.Timeout, over.Timeout, over.Timeout > 0)
	setIf(&d.MaxConcurrent, over.MaxConcurrent, over.MaxConcurrent > 0)
	setIf(&d.FailureThreshold, over.FailureThreshold, over.FailureThreshold > 0)
	setIf(&d.ResetTimeout, over.ResetTimeout, over.ResetTimeout > 0)
	setIf(&d.Model, over.Model, over.Model != "")
	setIf(&d.ExcludedTools, over.ExcludedTools, over.ExcludedTools != nil)
	setIf(&d.MaxTokens, over.MaxTokens, over.MaxTokens > 0)
	return d
}

func setIf[T any](dst *T, v T, ok bool) {
	if ok {
		*dst = v
	}
}
