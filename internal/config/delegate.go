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
	// Model is Claude Code's --model (an alias such as "sonnet" or a full
	// model name); empty: Claude Code's own choice.
	Model string `toml:"model"`
	// ExcludedTools are Claude Code's --disallowedTools patterns: tools it
	// is never offered, even when allowed_tools would match them.
	ExcludedTools []string `toml:"excluded_tools"`
	// MaxTokens caps each model reply (Claude Code reads it from
	// CLAUDE_CODE_MAX_OUTPUT_TOKENS; it has no flag); 0: its default.
	MaxTokens int `toml:"max_tokens"`
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
	if err := checkDelegation(d, path, "delegation"); err != nil {
		return err
	}
	out := &cfg.Delegation
	if d.FailureThreshold == 0 {
		out.FailureThreshold = cfg.Breaker.FailureThreshold
	}
	if d.ResetTimeout == 0 {
		out.ResetTimeout = cfg.Breaker.ResetTimeout
	}
	*out = out.Merge(d)
	return nil
}
