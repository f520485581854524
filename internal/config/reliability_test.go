package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The reliability example of docs/guides/configuration.md loads and means
// what the guide says.
func TestConfigurationGuideReliabilityExample(t *testing.T) {
	block := guideExample(t, "## Reliability:")
	dir := isolate(t)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), block))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Limits
	if l.MaxConcurrentCalls != 256 || l.DrainTimeout.Std() != 30*time.Second || l.PingInterval.Std() != 30*time.Second {
		t.Errorf("limits = %+v", l)
	}
	s := cfg.Servers["flaky"]
	if s == nil || s.TimeoutMS != 10000 || s.MaxConcurrentCalls != 4 {
		t.Fatalf("flaky = %+v", s)
	}
	if b := cfg.BreakerFor(s); b.FailureThreshold != 5 || b.ResetTimeout.Std() != time.Minute {
		t.Errorf("flaky's breaker = %+v, want its own 5 and 1m", b)
	}
	if cfg.Breaker.FailureThreshold != 3 || cfg.Breaker.ResetTimeout.Std() != 5*time.Minute {
		t.Errorf("global breaker = %+v", cfg.Breaker)
	}
}

// guideExample returns the first toml block of the configuration guide's
// section that starts with heading, so tests load exactly what users read.
func guideExample(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), heading)
	_, block, ok2 := strings.Cut(section, "```toml\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("configuration.md has no toml example under %q", heading)
	}
	return block
}

func TestReliabilityKeysRejectBadValues(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"duration not a string of a duration", "[limits]\ndrain_timeout = \"soon\"\n", "not a duration"},
		{"negative duration", "[breaker]\nreset_timeout = \"-1s\"\n", "negative"},
		{"negative threshold", "[breaker]\nfailure_threshold = -1\n", "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			_, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), tt.toml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Fatalf("error is not one line: %q", err)
			}
		})
	}
}
