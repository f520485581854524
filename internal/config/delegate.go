package config

import "time"

// Delegation defaults; the depth limit is security.max_delegation_depth.
const (
	DefaultDelegationTimeout     = 10 * time.Minute
	DefaultDelegationMaxTurns    = 10
	DefaultDelegationParallel    = 2
	DefaultDelegationCommand     = "claude"
	delegationMinTurns           = 3
	delegateClaude, delegateAgnt = "claude", "agent"
)

// Delegation is the [delegation] table: how weft hands tasks to Claude Code
// and its fallbacks.
type Delegation struct {
	// ClaudeCommand is the Claude Code binary (default "claude" from PATH).
	ClaudeCommand string `toml:"claude_command"`
	// Fallback is the chain of delegates tried in order: "claude", "agent".
	Fallback []string `toml:"fallback"`
	// AllowedTools are the --allowedTools patterns when a task names none.
	AllowedTools []string `toml:"allowed_tools"`
	// MaxTurns is Claude Code's --max-turns when a task names none (≥ 3).
	MaxTurns int `toml:"max_turns"`
	// Timeout bounds each attempt.
	Timeout Duration `toml:"timeout"`
	// MaxConcurrent bounds delegations running at once.
	MaxConcurrent int `toml:"max_concurrent"`
	// FailureThreshold and ResetTimeout configure the delegation breaker
	// (default: [breaker]).
	FailureThreshold int      `toml:"failure_threshold"`
	ResetTimeout     Duration `toml:"reset_timeout"`
}

// DefaultDelegation is [delegation] when the file is silent.
func DefaultDelegation() Delegation {
	return Delegation{ClaudeCommand: DefaultDelegationCommand, Fallback: []string{delegateClaude, delegateAgnt},
		AllowedTools: []string{"mcp__weft__*"}, MaxTurns: DefaultDelegationMaxTurns, Timeout: Duration(DefaultDelegationTimeout),
		MaxConcurrent:    DefaultDelegationParallel,
		FailureThreshold: DefaultFailureThreshold, ResetTimeout: Duration(DefaultResetTimeout)}
}

// applyDelegation copies the [delegation] keys of a decoded file onto cfg,
// keeping defaults for what the file leaves out.
func applyDelegation(cfg *Config, d Delegation, path string) error {
	if d.MaxTurns < 0 || d.MaxConcurrent < 0 || d.FailureThreshold < 0 {
		return invalidf("%s: delegation.max_turns, max_concurrent and failure_threshold must be positive (0 means the default)", path)
	}
	if d.MaxTurns > 0 && d.MaxTurns < delegationMinTurns {
		return invalidf("%s: delegation.max_turns is %d; Claude Code needs at least %d", path, d.MaxTurns, delegationMinTurns)
	}
	for _, f := range d.Fallback {
		if f != delegateClaude && f != delegateAgnt {
			return invalidf("%s: delegation.fallback names %q; use %q and/or %q", path, f, delegateClaude, delegateAgnt)
		}
	}
	out := &cfg.Delegation
	if d.FailureThreshold == 0 {
		out.FailureThreshold = cfg.Breaker.FailureThreshold
	}
	if d.ResetTimeout == 0 {
		out.ResetTimeout = cfg.Breaker.ResetTimeout
	}
	setIf(&out.ClaudeCommand, d.ClaudeCommand, d.ClaudeCommand != "")
	setIf(&out.Fallback, d.Fallback, d.Fallback != nil)
	setIf(&out.AllowedTools, d.AllowedTools, d.AllowedTools != nil)
	setIf(&out.MaxTurns, d.MaxTurns, d.MaxTurns > 0)
	setIf(&out.Timeout, d.Timeout, d.Timeout > 0)
	setIf(&out.MaxConcurrent, d.MaxConcurrent, d.MaxConcurrent > 0)
	setIf(&out.FailureThreshold, d.FailureThreshold, d.FailureThreshold > 0)
	setIf(&out.ResetTimeout, d.ResetTimeout, d.ResetTimeout > 0)
	return nil
}

func setIf[T any](dst *T, v T, ok bool) {
	if ok {
		*dst = v
	}
}
