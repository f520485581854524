package daemon_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

// A delegation as an agent carries Claude Code's reported cost in its
// result and adds it to the cost counter under the agent's name; the
// override's model reaches Claude Code, and its weft runs as the agent.
func TestDelegateAsCountsCostAndRunsAsAgent(t *testing.T) {
	t.Setenv("FAKE_CLAUDE_MODE", "ok")
	t.Setenv("WEFT_DELEGATION_DEPTH", "")
	path := writeConfig(t, "[delegation]\nclaude_command = \""+testutil.FakeClaudeBinary(t)+"\"\nfallback = [\"claude\"]\nmodel = \"sonnet\"\n")
	d := newDaemon(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, agent := range []string{"coder", ""} {
		res, err := d.DelegateAs(ctx, gateway.DelegateArgs{Task: "say hi"}, agent, config.Delegation{Model: "opus"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var data struct {
			CostUSD float64 `json:"cost_usd"`
		}
		if err := json.Unmarshal(res.Data, &data); err != nil || data.CostUSD != 0.0375 {
			t.Fatalf("structured result %s, want cost_usd 0.0375", res.Data)
		}
		wantArgs := `"args":["mcp-server","--settle","15s","--agent","coder",`
		if agent == "" {
			wantArgs = `"args":["mcp-server","--settle","15s","--config",`
		}
		if !strings.Contains(res.Answer, "--model opus") || !strings.Contains(res.Answer, wantArgs) {
			t.Errorf("Claude Code ran with %s, want --model opus and %s", res.Answer, wantArgs)
		}
	}
	srv := httptest.NewServer(d.Gateway().Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{`weft_agent_cost_usd_total{agent="coder"} 0.0375`, `weft_agent_cost_usd_total{agent="default"} 0.0375`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}
