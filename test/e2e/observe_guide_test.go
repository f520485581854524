//go:build unix

package e2e

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/testutil"
)

// observeGuide is docs/guides/observability.md.
func observeGuide(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "observability.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// guideScrapeConfig is the guide's Prometheus scrape config for target,
// with the token read from tokenFile.
func guideScrapeConfig(t *testing.T, target, tokenFile string) string {
	t.Helper()
	_, rest, ok := strings.Cut(observeGuide(t), "<!-- scrape config -->\n```yaml\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/guides/observability.md lost its scrape config")
	}
	body = strings.Replace(body, "/etc/prometheus/weft-token", tokenFile, 1)
	body = strings.Replace(body, "127.0.0.1:7777", target, 1)
	return "global:\n  scrape_interval: 1s\n" + body
}

var tomlBlock = regexp.MustCompile("(?s)```toml\n(.*?)```")

// TestObservabilityGuideConfigLoads loads every weft.toml snippet of the
// guide.
func TestObservabilityGuideConfigLoads(t *testing.T) {
	blocks := tomlBlock.FindAllStringSubmatch(observeGuide(t), -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d toml blocks in the guide, want [gateway], [metrics] and [audit]", len(blocks))
	}
	for _, b := range blocks {
		path := filepath.Join(t.TempDir(), "weft.toml")
		if err := os.WriteFile(path, []byte(b[1]), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load(path); err != nil {
			t.Errorf("guide snippet does not load: %v\n%s", err, b[1])
		}
	}
}

// TestObservabilityGuideCommands runs the guide's shell commands against a
// running weft: the curl probes and the plan pictures.
func TestObservabilityGuideCommands(t *testing.T) {
	curl := testutil.SystemTool(t, "curl", "curl")
	dot := testutil.SystemTool(t, "dot", "graphviz")
	e := newEnv(t)
	e.writeConfig(t, "[gateway]\nready_requires = [\"github\"]\n")
	e.storePlan(t, "report", dashboardPlan)
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")
	guide := observeGuide(t)
	for _, c := range []struct{ cmd, path, want string }{
		{"curl -fsS http://127.0.0.1:7777/healthz", "/healthz", "ok\n"},
		{"curl -fsS http://127.0.0.1:7777/readyz      # not ready: server github is disconnected", "/readyz", "not ready: server github is not configured"},
		{"curl -fsS 'http://127.0.0.1:7777/readyz?all'", "/readyz?all", "not ready: server github is not configured"},
	} {
		if !strings.Contains(guide, c.cmd) {
			t.Fatalf("the guide no longer shows %q", c.cmd)
		}
		out, _ := exec.Command(curl, "-sS", base+c.path).CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %q, want %q", c.cmd, out, c.want)
		}
	}
	if err := exec.Command(curl, "-fsS", base+"/readyz").Run(); err == nil {
		t.Error("curl -f on a weft that is not ready succeeded; probes would pass")
	}

	for _, cmd := range []string{"weft plan show report --format dot | dot -Tsvg > report.svg", "weft plan show report --format mermaid",
		"weft plan show report --format svg > report.svg"} {
		if !strings.Contains(guide, cmd) {
			t.Fatalf("the guide no longer shows %q", cmd)
		}
	}
	out, errOut, code := e.run("plan", "show", "report", "--format", "dot")
	if code != 0 {
		t.Fatalf("plan show --format dot: %d %s", code, errOut)
	}
	svg := exec.Command(dot, "-Tsvg")
	svg.Stdin = strings.NewReader(out)
	img, err := svg.Output()
	if err != nil || !bytes.Contains(img, []byte("<svg")) || !bytes.Contains(img, []byte("Summarise")) {
		t.Fatalf("dot -Tsvg on the plan: %v\n%s", err, out)
	}
	out, _, code = e.run("plan", "show", "report", "--format", "mermaid")
	if code != 0 || !strings.HasPrefix(out, "flowchart LR\n") || !strings.Contains(out, "s2 --> s4") {
		t.Fatalf("plan show --format mermaid: %d\n%s", code, out)
	}
	out, errOut, code = e.run("plan", "show", "report", "--format", "svg")
	if code != 0 || xml.Unmarshal([]byte(out), new(struct{})) != nil || strings.Count(out, `<g class="step"`) != 4 ||
		strings.Count(out, `<path class="edge"`) != 4 {
		t.Fatalf("plan show --format svg: %d %s\n%s", code, errOut, out)
	}
}
