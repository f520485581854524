package oauth

import (
	"testing"

	"github.com/weft-dev/weft/internal/config"
)

// TestUserKeyNeverNamesAnAgentInstance: a user named like an agent cannot
// reach the login of that agent's own instance of the same server.
func TestUserKeyNeverNamesAnAgentInstance(t *testing.T) {
	if got, inst := UserKey("github", "coder"), config.InstanceName("github", "coder"); got == inst {
		t.Fatalf("user coder's key %q is agent coder's instance %q", got, inst)
	}
}
