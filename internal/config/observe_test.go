package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestObserveKeys(t *testing.T) {
	dir := isolate(t)
	tests := []struct {
		name, toml, err string
		check           func(*Config) bool
	}{
		{"defaults", "", "", func(c *Config) bool {
			return c.Audit.File == "" && c.Audit.MaxSizeMB == DefaultAuditMaxSizeMB && c.Audit.MaxFiles == DefaultAuditMaxFiles &&
				c.Metrics.MaxToolLabels == 0 && c.Gateway.ReadyRequires == nil
		}},
		{"relative audit file beside weft.toml", "[audit]\nfile = \"logs/audit.jsonl\"\nlog_arguments = true\nmax_size_mb = 5\nmax_files = 2\n", "",
			func(c *Config) bool {
				return c.Audit.File == filepath.Join(dir, "logs", "audit.jsonl") && c.Audit.LogArguments &&
					c.Audit.MaxSizeMB == 5 && c.Audit.MaxFiles == 2
			}},
		{"ready_requires", "[gateway]\nready_requires = [\"github\", \"fs\"]\n", "",
			func(c *Config) bool { return reflect.DeepEqual(c.Gateway.ReadyRequires, []string{"github", "fs"}) }},
		{"no tool label", "[metrics]\nmax_tool_labels = -1\n", "", func(c *Config) bool { return c.Metrics.MaxToolLabels == -1 }},
		{"negative size", "[audit]\nmax_size_mb = -1\n", "audit.max_size_mb", nil},
		{"bad label limit", "[metrics]\nmax_tool_labels = -5\n", "metrics.max_tool_labels", nil},
		{"bad server name", "[gateway]\nready_requires = [\"a b\"]\n", "gateway.ready_requires", nil},
		{"unknown audit key", "[audit]\nfiles = \"x\"\n", "known keys there: file, log_arguments", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "weft.toml")
			writeFile(t, path, tt.toml)
			cfg, err := Load(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(cfg) {
				t.Fatalf("config %+v %+v %+v", cfg.Gateway, cfg.Audit, cfg.Metrics)
			}
		})
	}
}
