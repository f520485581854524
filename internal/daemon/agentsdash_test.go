package daemon_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/testutil"
)

// Client sessions are counted by face and agent: one client of coder over
// HTTP and one of the default face; promtool accepts the output.
func TestSessionsGaugeByAgent(t *testing.T) {
	a := testutil.ServeHTTP(t, testutil.NewEchoServer("a", 1))
	path := writeConfig(t, fmt.Sprintf("[tools.mcp_servers.a]\ntarget = %q\n[agents.coder]\nservers = [\"a\"]\n[agents.idle]\n", a))
	d := newDaemon(t, path)
	srv := httptest.NewServer(d.Gateway().Handler())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range []string{gateway.AgentPath("coder"), gateway.Endpoint} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + p},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // a session the face keeps
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
	}
	body := scrape(t, d)
	for _, want := range []string{`weft_client_sessions{agent="coder",face="http"} 1`, `weft_client_sessions{agent="default",face="http"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(body, "weft_client_sessions"))
		}
	}
	if strings.Contains(body, `agent="idle"`) {
		t.Errorf("an agent without sessions has a series:\n%s", body)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
