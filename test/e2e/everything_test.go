//go:build unix

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingClient is a downstream client with every capability, answering
// server-to-client requests with recognisable values.
func everythingClient(progress chan *mcp.ProgressNotificationParams) *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model", Content: &mcp.TextContent{Text: "e2e-sampled"}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "e2e-elicited", "check": true, "email": "a@b.c"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params:
			default:
			}
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///tmp/e2e-root", Name: "e2e-root"})
	return c
}

// writeConfig writes a weft.toml with one upstream named everything.
func (e *env) writeConfig(t *testing.T, body string) {
	if err := os.WriteFile(e.config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestEverythingThroughWeft(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	node := npmBin(t, "node")
	nodeDir := node[:strings.LastIndex(node, "/")]
	for _, mode := range []string{"stdio", "streamableHttp", "sse"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			target := fmt.Sprintf("target = %q\nenv = { PATH = %q }", bin, nodeDir+":"+os.Getenv("PATH"))
			if mode != "stdio" {
				port := freePort(t)
				up := exec.Command(bin, mode)
				up.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port), "PATH="+nodeDir+":"+os.Getenv("PATH"))
				up.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := up.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = syscall.Kill(-up.Process.Pid, syscall.SIGKILL); _ = up.Wait() })
				path, typ := "/mcp", "http"
				if mode == "sse" {
					path, typ = "/sse", "sse"
				}
				waitPort(t, port)
				target = fmt.Sprintf("target = \"http://127.0.0.1:%d%s\"\ntype = %q", port, path, typ)
			}
			e.writeConfig(t, "[tools.mcp_servers.everything]\n"+target+"\n")
			s := e.serve()
			progress := make(chan *mcp.ProgressNotificationParams, 100)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := everythingClient(progress).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			checkEverything(t, ctx, cs, progress)
		})
	}
}

func checkEverything(t *testing.T, ctx context.Context, cs *mcp.ClientSession, progress chan *mcp.ProgressNotificationParams) {
	names := toolNames(t, cs)
	for _, want := range []string{"everything__echo", "everything__get-sum", "everything__trigger-long-running-operation",
		"everything__trigger-sampling-request", "everything__trigger-elicitation-request", "everything__get-roots-list"} {
		if !has(names, want) {
			t.Errorf("%s not exposed; tools: %v", want, names)
		}
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		params := &mcp.CallToolParams{Name: "everything__" + name, Arguments: args}
		if name == "trigger-long-running-operation" {
			params.SetProgressToken("e2e-progress")
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		if res.IsError {
			t.Errorf("%s returned a tool error: %s", name, b.String())
		}
		return b.String()
	}
	if got := call("echo", map[string]any{"message": "hello weft"}); !strings.Contains(got, "hello weft") {
		t.Errorf("echo answered %q", got)
	}
	call("trigger-long-running-operation", map[string]any{"duration": 0.3, "steps": 3})
	select {
	case p := <-progress:
		if p.ProgressToken != "e2e-progress" {
			t.Errorf("progress relayed with token %v, want the client's own", p.ProgressToken)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("no progress notification relayed")
	}
	if got := call("trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10}); !strings.Contains(got, "e2e-sampled") {
		t.Errorf("sampling round-trip answered %q", got)
	}
	if got := call("trigger-elicitation-request", map[string]any{}); !strings.Contains(got, "e2e-elicited") {
		t.Errorf("elicitation round-trip answered %q", got)
	}
	if got := call("get-roots-list", map[string]any{}); !strings.Contains(got, "e2e-root") {
		t.Errorf("roots round-trip answered %q", got)
	}
	var nres int
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if nres < 3 {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
				t.Errorf("read %s: %v", r.URI, err)
			}
		}
		nres++
	}
	var nprompts int
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(p.Name, "everything__") {
			t.Errorf("prompt %s not namespaced", p.Name)
		}
		nprompts++
	}
	if nres == 0 || nprompts == 0 {
		t.Errorf("resources %d, prompts %d: want some of each", nres, nprompts)
	}
}

func waitPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := dialTCP(port); err == nil {
			c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("port %d never opened", port)
}
