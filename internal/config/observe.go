package config

import "path/filepath"

// Audit log defaults.
const (
	DefaultAuditMaxSizeMB = 100
	DefaultAuditMaxFiles  = 5
)

// Audit is the [audit] table: a JSON-lines record of every tool call and
// config change.
type Audit struct {
	// File is where the log is written; empty: no audit log. A relative
	// path is taken from the directory of weft.toml.
	File string `toml:"file"`
	// LogArguments records tool arguments (secrets masked); by default only
	// their SHA-256 digest is written.
	LogArguments bool `toml:"log_arguments"`
	// MaxSizeMB rotates the file when it reaches this size.
	MaxSizeMB int `toml:"max_size_mb"`
	// MaxFiles is how many rotated files are kept (file.1 … file.N).
	MaxFiles int `toml:"max_files"`
}

// Metrics is the [metrics] table.
type Metrics struct {
	// Enabled serves /metrics and counts calls (default true).
	Enabled *bool `toml:"enabled"`
	// MaxToolLabels bounds how many tool names get their own label on
	// weft_tool_calls_total (0: the default 100; -1: no tool label).
	MaxToolLabels int `toml:"max_tool_labels"`
}

// applyObserve copies [audit], [metrics] and [gateway] ready_requires onto
// cfg, with defaults for what the file leaves out.
func applyObserve(cfg *Config, fc *fileConfig, path string) error {
	a := fc.Audit
	if a.MaxSizeMB < 0 || a.MaxFiles < 0 {
		return invalidf("%s: audit.max_size_mb and audit.max_files must be positive (0 means the default)", path)
	}
	if a.MaxSizeMB == 0 {
		a.MaxSizeMB = DefaultAuditMaxSizeMB
	}
	if a.MaxFiles == 0 {
		a.MaxFiles = DefaultAuditMaxFiles
	}
	if a.File != "" && !filepath.IsAbs(a.File) {
		a.File = filepath.Join(filepath.Dir(path), a.File)
	}
	cfg.Audit = a
	if fc.Metrics.MaxToolLabels < -1 {
		return invalidf("%s: metrics.max_tool_labels is %d; use a positive number, 0 for the default or -1 for no tool label", path, fc.Metrics.MaxToolLabels)
	}
	cfg.Metrics = fc.Metrics
	for _, name := range fc.Gateway.ReadyRequires {
		if !ValidName(name) {
			return invalidf("%s: gateway.ready_requires names %q, which is not a valid server name", path, name)
		}
	}
	cfg.Gateway.ReadyRequires = fc.Gateway.ReadyRequires
	return nil
}

// defaultAudit is [audit] when the file is silent: no log.
func defaultAudit() Audit {
	return Audit{MaxSizeMB: DefaultAuditMaxSizeMB, MaxFiles: DefaultAuditMaxFiles}
}

// On reports whether metrics are collected and served.
func (m Metrics) On() bool { return m.Enabled == nil || *m.Enabled }
