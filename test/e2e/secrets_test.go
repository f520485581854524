//go:build unix

package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/testutil"
)

// canaries are secret values that must never appear outside weft.toml.
var canaries = []string{"canary-env-6c1f", "canary-header-9d2e", "canary-urlpass-4b7a", "canary-expanded-1a3c", "canary-dead-7e5b", "canary-oauth-5e2a"}

// TestCanarySecretsNeverLeak: secrets placed in env,
// headers and URLs appear in no log line, error, `weft mcp list`/`get`
// output or state file.
func TestCanarySecretsNeverLeak(t *testing.T) {
	up := testutil.ServeHTTP(t, mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil))
	withPass := strings.Replace(up, "http://", "http://user:canary-urlpass-4b7a@", 1)
	e := newEnv(t)
	t.Setenv("CANARY_SRC", "canary-expanded-1a3c")
	t.Setenv("CANARY_OAUTH_SECRET", "canary-oauth-5e2a")
	toml := `[tools.mcp_servers.local]
target = "` + testutil.FakeServerBinary(t) + `"
env = { SECRET_TOKEN = "canary-env-6c1f", FROM_ENV = "${CANARY_SRC}" }

# A careless server that prints its environment on stdout before serving
# (a server that dumps it and exits at once may die before weft reads it).
[tools.mcp_servers.noisy]
target = "` + testutil.FakeServerBinary(t) + `"
args = ["--dump-env", "--name", "noisy"]
env = { SECRET_TOKEN = "canary-env-6c1f" }

[tools.mcp_servers.remote]
target = "` + withPass + `"
headers = { Authorization = "Bearer canary-header-9d2e", X-Key = "${CANARY_SRC}" }

# An OAuth client secret, named by client_secret_env (OAuth tokens are
# checked the same way by TestOAuthUpstreamLifecycle).
[tools.mcp_servers.oauthed]
target = "` + up + `"
oauth = { client_id = "weft", client_secret_env = "CANARY_OAUTH_SECRET" }

[tools.mcp_servers.dead]
target = "http://user:canary-dead-7e5b@127.0.0.1:1/mcp"
headers = { X-Dead = "canary-dead-7e5b" }
`
	if err := os.WriteFile(e.config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	var seen []string
	s := e.serveArgs("--log-level", "debug")
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "get", "remote"}, {"mcp", "get", "dead"}, {"mcp", "get", "local", "--json"}} {
		out, errOut, _ := e.run(args...)
		seen = append(seen, strings.Join(args, " ")+"\n"+out+errOut)
	}
	run := filepath.Join(e.home, ".weft", "run")
	if st, err := os.Stat(run); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("state dir %s: %v, want mode 0700", run, err)
	}
	states, _ := filepath.Glob(filepath.Join(run, "*.json"))
	for _, f := range append(states, filepath.Join(e.home, "weft.pins.json")) {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("state file %s: %v, want mode 0600", f, err)
		}
	}
	s.stop(t)
	log := s.stderr.String()
	if !strings.Contains(log, "SECRET_TOKEN=***") {
		t.Errorf("the noisy child's environment dump was not logged redacted:\n%s", log)
	}
	// The child got its own env, the safe set and the delegation
	// depth, but neither weft's whole environment nor another server's env.
	for _, want := range []string{`line="HOME=`, `line="PATH=`, `line="WEFT_DELEGATION_DEPTH=1"`} {
		if !strings.Contains(log, want) {
			t.Errorf("child environment lacks %s", want)
		}
	}
	for _, leak := range []string{"CANARY_SRC=", "FROM_ENV=", "GOPATH=", "GOFLAGS="} {
		if strings.Contains(log, `line="`+leak) {
			t.Errorf("child environment holds %s, which it did not declare", leak)
		}
	}
	seen = append(seen, "serve log\n"+s.stderr.String())
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"--log-level", "debug", "mcp", "get", "dead"}} {
		out, errOut, _ := e.run(args...)
		seen = append(seen, "health check: "+strings.Join(args, " ")+"\n"+out+errOut)
	}
	_ = filepath.WalkDir(e.home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != e.config {
			b, _ := os.ReadFile(p)
			seen = append(seen, "file "+p+"\n"+string(b))
		}
		return nil
	})
	for _, text := range seen {
		for _, c := range canaries {
			if strings.Contains(text, c) {
				t.Errorf("secret %s leaked in %s", c, text)
			}
		}
	}
}
