package policy

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/config"
)

// TestRedactHandlerMasksSecretsEverywhere: message, string, error, group and
// With attributes are all masked, agents' tokens and their instances' env
// included; short values are left alone.
func TestRedactHandlerMasksSecretsEverywhere(t *testing.T) {
	var s Secrets
	cfg := config.Default()
	cfg.Servers["a"] = &config.Server{Name: "a", Env: map[string]string{"K": "${SRC}", "N": "1"},
		Headers: map[string]string{"Authorization": "Bearer tok-123456"}, Target: "https://u:pw-98765@h/mcp"}
	cfg.Agents = map[string]*config.AgentSpec{"coder": {Name: "coder", Token: "agent-tok-24680",
		Uses: map[string]*config.AgentServer{"a": {Instance: "a@coder",
			Config: &config.Server{Name: "a@coder", Env: map[string]string{"K": "agent-env-13579"}}}}}}
	s.Set(SecretValues(cfg, func(string) string { return "from-env-secret" }))
	var b strings.Builder
	log := slog.New(s.Handler(slog.NewTextHandler(&b, nil))).With("w", "x from-env-secret")
	log.Info("got tok-123456", "err", errors.New("dial pw-98765"), slog.Group("g", "h", "Bearer tok-123456"), "n", 1,
		"agent", "agent-tok-24680 agent-env-13579")
	out := b.String()
	for _, secret := range []string{"tok-123456", "pw-98765", "from-env-secret", "agent-tok-24680", "agent-env-13579"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s leaked: %s", secret, out)
		}
	}
	if !strings.Contains(out, "n=1") {
		t.Errorf("non-secret attribute lost: %s", out)
	}
}
