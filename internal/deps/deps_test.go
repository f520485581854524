// Package deps holds no code: its test enforces weft's import graph, the
// one-way floors docs/design.md describes.
package deps

import (
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/weft-dev/weft/"

// floors: a package (left) must never depend, directly or through another
// package, on the ones on the right. Lower floors know nothing of higher
// ones: the hub of its faces, the agent and plans of the hub.
var floors = map[string][]string{
	"internal/hub":      {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/llm"},
	"internal/upstream": {"internal/hub", "internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/llm"},
	"internal/config":   {"internal/upstream", "internal/hub", "internal/gateway", "internal/policy"},
	"internal/policy":   {"internal/upstream", "internal/hub", "internal/gateway"},
	"internal/gateway":  {"internal/agent", "internal/plan", "internal/delegate", "internal/llm"},
	"internal/agent":    {"internal/hub", "internal/gateway", "internal/upstream", "internal/plan", "internal/config"},
	"internal/plan":     {"internal/hub", "internal/gateway", "internal/upstream", "internal/agent"},
	"internal/delegate": {"internal/hub", "internal/gateway", "internal/upstream", "internal/agent"},
	"internal/toolset":  {"internal/hub", "internal/gateway", "internal/upstream"},
	// An agent's view of the catalog: the face uses it, it knows no face.
	"internal/agentview": {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/llm"},
	"internal/oauth":     {"internal/upstream", "internal/hub", "internal/gateway", "internal/policy"},
	// Observers of the hub: they see calls, never the faces or callers.
	"internal/metrics": {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/policy"},
	"internal/audit":   {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/policy"},
	"internal/tracing": {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/policy"},
	"internal/ui":      {"internal/gateway", "internal/agent", "internal/plan", "internal/delegate", "internal/policy"},
}

// leaves import no weft package at all.
var leaves = []string{"internal/atomicfile", "internal/filelock", "internal/naming", "internal/toolset", "internal/llm", "internal/faceauth"}

// importedOnlyBy: the composition root and the command line sit on top;
// nothing below may reach up to them.
var importedOnlyBy = map[string][]string{
	"internal/cli":    {"cmd/weft"},
	"internal/daemon": {"internal/cli"},
}

func TestImportGraph(t *testing.T) {
	graph := importGraph(t)
	for pkg, banned := range floors {
		deps := closure(graph, pkg)
		for _, b := range banned {
			if deps[b] {
				t.Errorf("%s depends on %s (through %s); it must not: see docs/design.md", pkg, b, path(graph, pkg, b))
			}
		}
		for _, top := range []string{"internal/daemon", "internal/cli"} {
			if deps[top] {
				t.Errorf("%s depends on %s, which only the command line may import", pkg, top)
			}
		}
	}
	for _, leaf := range leaves {
		if imps := graph[leaf]; len(imps) > 0 {
			t.Errorf("%s is a leaf package but imports %v", leaf, imps)
		}
	}
	for pkg, imps := range graph {
		for _, imp := range imps {
			if allowed, ok := importedOnlyBy[imp]; ok && !slices.Contains(allowed, pkg) {
				t.Errorf("%s imports %s; only %v may", pkg, imp, allowed)
			}
		}
	}
}

// importGraph maps each package of the module to the module packages it
// imports (tests excluded), as `go list` reports them.
func importGraph(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], module)
		graph[pkg] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				graph[pkg] = append(graph[pkg], strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(graph[pkg])
	}
	if len(graph["internal/hub"]) == 0 {
		t.Fatalf("go list found no imports of internal/hub; is the module layout as expected?\n%s", out)
	}
	return graph
}

// closure is every package pkg depends on.
func closure(graph map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, imp := range graph[p] {
			if !seen[imp] {
				seen[imp] = true
				visit(imp)
			}
		}
	}
	visit(pkg)
	return seen
}

// path is one import chain from pkg to dep, for the error message.
func path(graph map[string][]string, pkg, dep string) string {
	prev := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == dep {
			chain := []string{p}
			for q := prev[p]; q != ""; q = prev[q] {
				chain = append([]string{q}, chain...)
			}
			return strings.Join(chain, " → ")
		}
		for _, imp := range graph[p] {
			if _, ok := prev[imp]; !ok {
				prev[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return "?"
}
