//go:build unix

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tsSummary is what testdata/tsclient/client.mjs prints.
type tsSummary struct {
	Server    string   `json:"server"`
	Tools     []string `json:"tools"`
	Resources []string `json:"resources"`
	Prompts   []string `json:"prompts"`
	Calls     map[string]struct {
		OK    bool   `json:"ok"`
		Text  string `json:"text"`
		Error string `json:"error"`
	} `json:"calls"`
	Skipped map[string]string `json:"skipped"`
	Reads   map[string]struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"reads"`
	PromptGets map[string]struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"prompt_gets"`
	Progress struct {
		Tool          string `json:"tool"`
		Notifications int    `json:"notifications"`
	} `json:"progress"`
	Sampling    int `json:"sampling"`
	Elicitation struct {
		Form int `json:"form"`
	} `json:"elicitation"`
	Roots  int      `json:"roots"`
	Errors []string `json:"errors"`
}

// TestTypeScriptClientThroughWeft drives weft with the official TypeScript
// SDK client (testdata/tsclient) over Streamable HTTP (`weft serve`) and over
// stdio (`weft mcp-server`), with server-everything as the upstream: it lists
// everything, calls every tool, reads every resource, gets every prompt, and
// answers the upstream's sampling, elicitation and roots requests. The
// agent faces (/agents/coder/mcp, `weft mcp-server --agent coder`) serve the
// same to a client of agent coder, whose view holds everything but not
// memory, a second global server.
func TestTypeScriptClientThroughWeft(t *testing.T) {
	s := conformanceSuite(t)
	everything := npmFixture(t, ".bin", "mcp-server-everything")
	memory := npmFixture(t, ".bin", "mcp-server-memory")
	weft := binary(t, "cmd/weft")
	script, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "tsclient", "client.mjs"))

	for _, face := range []string{"http", "stdio", "agent-http", "agent-stdio"} {
		t.Run(face, func(t *testing.T) {
			home := t.TempDir()
			mark := "WEFT_TSCLIENT_TEST=" + home
			cfg := filepath.Join(home, "weft.toml")
			toml := fmt.Sprintf("[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q, WEFT_TSCLIENT_TEST = %q }\n",
				everything, filepath.Dir(s.node)+":"+os.Getenv("PATH"), home)
			if strings.HasPrefix(face, "agent-") {
				toml += fmt.Sprintf("\n[tools.mcp_servers.memory]\ntarget = %q\nenv = { PATH = %q, WEFT_TSCLIENT_TEST = %q }\n\n[agents.coder]\nservers = [\"everything\"]\n",
					memory, filepath.Dir(s.node)+":"+os.Getenv("PATH"), home)
			}
			if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
				t.Fatal(err)
			}
			switch face {
			case "agent-http":
				w := startWeft(t, weft, home, cfg)
				checkAgentSummary(t, runTSClient(t, s.node, home, []string{script, strings.Replace(w.url, "/mcp", "/agents/coder/mcp", 1)}))
				w.stop(t)
			case "agent-stdio":
				checkAgentSummary(t, runTSClient(t, s.node, home, []string{script, "--stdio", weft, "--config", cfg, "mcp-server", "--agent", "coder"}))
			case "http":
				w := startWeft(t, weft, home, cfg)
				checkTSSummary(t, runTSClient(t, s.node, home, []string{script, w.url}))
				if len(processesWithEnv(mark)) == 0 {
					t.Errorf("no upstream process found by its environment: the leak check below would prove nothing")
				}
				w.stop(t)
			default:
				checkTSSummary(t, runTSClient(t, s.node, home, []string{script, "--stdio", weft, "--config", cfg, "mcp-server"}))
			}
			if left := processesWithEnv(mark); len(left) > 0 {
				t.Errorf("processes left after weft (%s) ended:\n  %s", face, strings.Join(left, "\n  "))
			}
		})
	}
}

// checkAgentSummary checks what a client of agent coder saw: everything's
// items, as checkTSSummary does, and nothing of memory, which is outside
// coder's view.
func checkAgentSummary(t *testing.T, sum tsSummary) {
	t.Helper()
	checkTSSummary(t, sum)
	for _, items := range [][]string{sum.Tools, sum.Resources, sum.Prompts} {
		for _, name := range items {
			if strings.Contains(name, "memory") {
				t.Errorf("agent coder's client saw %q, outside its view", name)
			}
		}
	}
}

// runTSClient runs client.mjs with HOME set to home and decodes its summary.
func runTSClient(t *testing.T, node, home string, args []string) tsSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(withoutVars(os.Environ(), "HOME", "WEFT_CONFIG"), "HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tsclient: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var sum tsSummary
	if err := json.Unmarshal(out, &sum); err != nil {
		t.Fatalf("tsclient printed no summary: %v\n%s\nstderr: %s", err, out, stderr.String())
	}
	return sum
}

func checkTSSummary(t *testing.T, sum tsSummary) {
	t.Helper()
	if sum.Server != "weft" || len(sum.Errors) > 0 {
		t.Fatalf("server %q, errors %v", sum.Server, sum.Errors)
	}
	for _, want := range []string{"everything__echo", "everything__get-sum", "everything__trigger-long-running-operation"} {
		if !contains(sum.Tools, want) {
			t.Errorf("tool %s not listed: %v", want, sum.Tools)
		}
	}
	if !contains(sum.Prompts, "everything__simple-prompt") || len(sum.Resources) == 0 {
		t.Errorf("prompts %v, resources %v: want everything's, namespaced", sum.Prompts, sum.Resources)
	}
	if c := sum.Calls["everything__echo"]; !strings.Contains(c.Text, "hello from tsclient") {
		t.Errorf("echo answered %+v", c)
	}
	for name, c := range sum.Calls {
		if !c.OK {
			t.Errorf("call %s failed: %s%s", name, c.Error, c.Text)
		}
	}
	upstream := 0 // weft's own tools (weft__*) are not under test here
	for _, name := range sum.Tools {
		if !strings.HasPrefix(name, "weft__") {
			upstream++
		}
	}
	if n := len(sum.Calls) + len(sum.Skipped); n != upstream {
		t.Errorf("%d tools called or skipped, %d upstream tools listed", n, upstream)
	}
	for uri, r := range sum.Reads {
		if !r.OK {
			t.Errorf("read %s failed: %s", uri, r.Error)
		}
	}
	for name, p := range sum.PromptGets {
		if !p.OK {
			t.Errorf("get prompt %s failed: %s", name, p.Error)
		}
	}
	if len(sum.Reads) < len(sum.Resources) || len(sum.PromptGets) != len(sum.Prompts) {
		t.Errorf("%d reads for %d resources, %d gets for %d prompts", len(sum.Reads), len(sum.Resources), len(sum.PromptGets), len(sum.Prompts))
	}
	if sum.Progress.Notifications == 0 || sum.Sampling == 0 || sum.Elicitation.Form == 0 || sum.Roots == 0 {
		t.Errorf("round-trips through weft: progress %d, sampling %d, elicitation %d, roots %d; want each at least 1",
			sum.Progress.Notifications, sum.Sampling, sum.Elicitation.Form, sum.Roots)
	}
}

func contains(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}
