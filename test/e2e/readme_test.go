//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/internal/hub"
)

// TestReadmeTour runs the README's five-minute tour, command by command, as
// a user would: the servers come from npx, resolved offline from the
// project's pinned npm fixtures. `go build` is what the test binary did
// already; `claude mcp add` is run by the bridge test (bridge_test.go).
func TestReadmeTour(t *testing.T) {
	node := npmBin(t, "node") // server-everything needs the fixtures' Node 22
	e := newEnv(t)
	e.config = filepath.Join(e.home, ".weft", "weft.toml") // the default a user gets
	e.dir, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "npm"))
	t.Setenv("PATH", filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	writeClaudeDesktopConfig(t, e.home)

	var s *served
	for _, step := range readmeTour(t) {
		args := strings.Fields(strings.ReplaceAll(step.line, "~", e.home))
		switch {
		case args[0] != "./bin/weft":
			continue // go build, claude mcp add
		case len(args) == 2 && args[1] == "serve":
			s = e.serve()
			continue
		}
		out, errOut, code := e.run(args[1:]...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", step.line, code, out, errOut)
		}
		checkTourStep(t, args[1:], out+errOut)
		checkPrinted(t, step, strings.ReplaceAll(out, e.home, "~"))
	}
	if s == nil {
		t.Fatal("the tour never ran weft serve")
	}
	// `weft mcp remove memory` reached the running weft: memory drains away.
	awaitStatus(t, s, "memory", 30*time.Second, "memory removed by the running weft", func(_ hub.ServerStatus, found bool) bool {
		return !found
	})
	awaitStatus(t, s, "everything", 30*time.Second, "everything active", func(st hub.ServerStatus, found bool) bool {
		return found && st.Status == hub.StatusActive
	})
}

// tourStep is one command of the README's tour and the lines the README
// shows it printing: "#   " comments right under the command.
type tourStep struct {
	line    string
	printed []string
}

// checkPrinted fails unless out (home shown as ~) holds every line the
// README shows step printing.
func checkPrinted(t *testing.T, step tourStep, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, want := range step.printed {
		if !slices.Contains(lines, want) {
			t.Errorf("%s: the README shows it printing %q; it printed:\n%s", step.line, want, out)
		}
	}
}

// readmeTour returns the commands of the README's tour block.
func readmeTour(t *testing.T) []tourStep {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, tour, ok := strings.Cut(string(b), "## Five-minute tour")
	_, block, ok2 := strings.Cut(tour, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README has no five-minute tour block")
	}
	var steps []tourStep
	afterCommand := false
	for _, l := range strings.Split(block, "\n") {
		switch {
		case afterCommand && strings.HasPrefix(l, "#   "):
			steps[len(steps)-1].printed = append(steps[len(steps)-1].printed, strings.TrimSpace(l[1:]))
		case strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#"):
			steps = append(steps, tourStep{line: strings.TrimSpace(l)})
			afterCommand = true
		default:
			afterCommand = false
		}
	}
	return steps
}

var addedRe = regexp.MustCompile(`Added MCP server '(\w+)' with \d+ tools`)

// checkTourStep checks what the README says each step prints or does.
func checkTourStep(t *testing.T, args []string, out string) {
	t.Helper()
	switch strings.Join(args[:2], " ") {
	case "mcp add":
		if m := addedRe.FindStringSubmatch(out); m == nil || m[1] != args[2] {
			t.Fatalf("weft %s printed %q, want the README's \"Added MCP server '%s' with N tools\"", strings.Join(args, " "), out, args[2])
		}
	case "mcp list":
		if !strings.Contains(out, "everything") || !strings.Contains(out, "memory") {
			t.Fatalf("weft mcp list does not show both servers:\n%s", out)
		}
	case "mcp get":
		var d hub.ServerDetail
		if err := json.Unmarshal([]byte(out), &d); err != nil || d.Name != "everything" || len(d.ExposedTools) == 0 {
			t.Fatalf("weft mcp get everything --json = %v, %q", err, out)
		}
	case "mcp import":
		if !strings.Contains(out, "desktop-echo") {
			t.Fatalf("weft mcp import did not report the imported server:\n%s", out)
		}
	}
}

// writeClaudeDesktopConfig puts a Claude Desktop config where the tour
// imports it from.
func writeClaudeDesktopConfig(t *testing.T, home string) {
	t.Helper()
	dir := filepath.Join(home, ".config", "Claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"desktop-echo": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}}`
	if err := os.WriteFile(filepath.Join(dir, "claude_desktop_config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReadmeQuickstartConfig serves examples/quickstart.toml as the README
// shows: its three npm servers all become active.
func TestReadmeQuickstartConfig(t *testing.T) {
	node := npmBin(t, "node")
	e := newEnv(t)
	e.dir, _ = filepath.Abs(filepath.Join("..", "..", "testdata", "npm"))
	// A copy: weft keeps its tool pins beside the config it reads.
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "quickstart.toml"))
	if err != nil {
		t.Fatal(err)
	}
	e.writeConfig(t, string(b))
	t.Setenv("PATH", filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := e.serve()
	for _, name := range []string{"everything", "memory", "files"} {
		awaitStatus(t, s, name, 60*time.Second, name+" active", func(st hub.ServerStatus, found bool) bool {
			return found && st.Status == hub.StatusActive
		})
	}
}
