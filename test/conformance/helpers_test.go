//go:build unix

// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, installed by `npm ci --prefix
// testdata/npm`) against weft: its server scenarios against `weft serve` in
// front of go-sdk's reference conformance server, and its client scenarios against
// testdata/conformance/client, which connects through weft's upstream code.
package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// baselineFile lists the scenarios expected to fail, in the suite's
// --expected-failures format, each with a comment giving the reason.
const baselineFile = "expected-failures.yml"

// cliTimeout bounds one run of the suite's CLI.
const cliTimeout = 2 * time.Minute

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weft-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildMu   sync.Mutex
	buildDone = map[string]error{}
)

// binary builds the main package pkg (module-relative, or a full import path)
// once per test run and
// returns the path of the executable.
func binary(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(binDir, filepath.Base(pkg))
	buildMu.Lock()
	defer buildMu.Unlock()
	err, done := buildDone[pkg]
	if !done {
		path := pkg
		if !strings.HasPrefix(pkg, "github.com/") {
			path = "github.com/weft-dev/weft/" + pkg
		}
		cmd := exec.Command("go", "build", "-o", out, path)
		if msg, berr := cmd.CombinedOutput(); berr != nil {
			err = fmt.Errorf("go build %s: %v\n%s", pkg, berr, msg)
		}
		buildDone[pkg] = err
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// suite is the installed conformance CLI and the Node that runs it.
type suite struct {
	node, cli string
}

// conformanceSuite finds the npm fixtures: the suite's CLI and the Node 22
// that runs it (the suite needs Node >= 22).
func conformanceSuite(t *testing.T) suite {
	t.Helper()
	return suite{
		node: npmFixture(t, ".bin", "node"),
		cli:  npmFixture(t, "@modelcontextprotocol", "conformance", "dist", "index.js"),
	}
}

// npmFixture returns the path of a file under testdata/npm/node_modules,
// failing under CI when it is missing and skipping otherwise.
func npmFixture(t *testing.T, elem ...string) string {
	t.Helper()
	p, _ := filepath.Abs(filepath.Join(append([]string{"..", "..", "testdata", "npm", "node_modules"}, elem...)...))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("npm fixture %s missing: run `npm ci --prefix testdata/npm`", p)
		}
		t.Skipf("npm fixture %s missing: run `npm ci --prefix testdata/npm`", p)
	}
	return p
}

// run runs the CLI with args in its own process group, with cwd dir, and
// returns its exit code and combined output. The whole group is killed when
// the CLI ends or times out, so no scenario's process outlives it.
func (s suite) run(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.node, append([]string{s.cli}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		t.Fatalf("conformance %s timed out after %v:\n%s", args[0], cliTimeout, out.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run conformance: %v", err)
	}
	return code, out.String()
}

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// result is what one scenario's checks add up to.
type result struct {
	passed, failed, warnings int
	problems                 []string
}

// failing applies the suite's baseline rule: any failed or warning check
// makes the scenario fail.
func (r *result) failing() bool { return r.failed > 0 || r.warnings > 0 }

// stamp is the suffix the CLI gives each result directory.
var stamp = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readResults reads every checks.json under root; a scenario's name is its
// directory's path below root without prefix and the timestamp.
func readResults(t *testing.T, root, prefix string) map[string]*result {
	t.Helper()
	out := map[string]*result{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "checks.json" {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(stamp.ReplaceAllString(filepath.ToSlash(rel), ""), prefix)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var checks []check
		if err := json.Unmarshal(data, &checks); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		r := &result{}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				r.passed++
			case "FAILURE":
				r.failed++
				r.problems = append(r.problems, fmt.Sprintf("FAILURE %s: %s", c.Name, c.ErrorMessage))
			case "WARNING":
				r.warnings++
				r.problems = append(r.problems, fmt.Sprintf("WARNING %s: %s", c.Name, c.ErrorMessage))
			}
		}
		out[name] = r
		return nil
	})
	if err != nil {
		t.Fatalf("read results: %v", err)
	}
	return out
}

// summaryLine is a scenario's line in the CLI's closing summary.
var summaryLine = regexp.MustCompile(`(?m)^[✓✗] (\S+): \d+ passed`)

// ranScenarios lists the scenarios the CLI's summary names.
func ranScenarios(output string) []string {
	var out []string
	for _, m := range summaryLine.FindAllStringSubmatch(output, -1) {
		out = append(out, m[1])
	}
	return out
}

// loadBaseline reads the mode ("server" or "client") section of the
// baseline: scenario name to the reason given in its comment.
func loadBaseline(t *testing.T, mode string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(baselineFile)
	if err != nil {
		t.Fatalf("read baseline: %v", err)
	}
	out := map[string]string{}
	section := ""
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case !strings.HasPrefix(line, " ") && strings.Contains(line, ":"):
			section = strings.TrimSpace(line[:strings.Index(line, ":")])
		case strings.HasPrefix(trimmed, "- "):
			entry, reason, _ := strings.Cut(strings.TrimPrefix(trimmed, "- "), "#")
			entry, reason = strings.TrimSpace(entry), strings.TrimSpace(reason)
			if reason == "" {
				t.Errorf("%s:%d: %s has no comment giving the reason", baselineFile, i+1, entry)
			}
			if section == mode {
				out[entry] = reason
			}
		default:
			t.Errorf("%s:%d: unexpected line %q", baselineFile, i+1, line)
		}
	}
	return out
}

// judge reports each scenario's checks with t.Logf and fails the test on a
// failing scenario the baseline does not list, on a baseline entry whose
// scenario passed or did not run, and on a scenario without results.
func judge(t *testing.T, mode string, results map[string]*result, ran []string, output string) {
	t.Helper()
	baseline := loadBaseline(t, mode)
	names := make([]string, 0, len(results))
	for name := range results {
		names = append(names, name)
	}
	sort.Strings(names)
	passedScenarios, passedChecks, totalChecks := 0, 0, 0
	for _, name := range names {
		r := results[name]
		passedChecks += r.passed
		totalChecks += r.passed + r.failed
		verdict := "PASS"
		if r.failing() {
			verdict = "FAIL"
			if reason, ok := baseline[name]; ok {
				verdict = "FAIL (expected: " + reason + ")"
			}
		} else {
			passedScenarios++
		}
		t.Logf("%s %-45s %d/%d checks passed, %d warnings  %s", mode, name, r.passed, r.passed+r.failed, r.warnings, verdict)
		_, expected := baseline[name]
		switch {
		case r.failing() && !expected:
			t.Errorf("%s scenario %s fails and is not in %s:\n  %s", mode, name, baselineFile, strings.Join(r.problems, "\n  "))
		case !r.failing() && expected:
			t.Errorf("%s scenario %s passes: remove it from %s", mode, name, baselineFile)
		}
	}
	t.Logf("%s side: %d/%d scenarios pass (%d/%d checks)", mode, passedScenarios, len(results), passedChecks, totalChecks)
	for name := range baseline {
		if results[name] == nil {
			t.Errorf("%s: %s is in %s but did not run", mode, name, baselineFile)
		}
	}
	if len(ran) == 0 {
		t.Errorf("the conformance CLI printed no summary:\n%s", output)
	}
	for _, name := range ran {
		if results[name] == nil {
			t.Errorf("%s scenario %s has no checks.json", mode, name)
		}
	}
	if t.Failed() {
		t.Logf("conformance CLI output:\n%s", output)
	}
}

// processesRunning lists live processes whose command line mentions path
// (a binary under this test's own temporary directory).
func processesRunning(path string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(path)) {
			continue
		}
		if zombie(e.Name()) {
			continue // a zombie holds nothing
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
	}
	return out
}

// processesWithEnv lists live processes (ours: others' environments are
// unreadable) whose environment holds the variable kv ("NAME=value").
func processesWithEnv(kv string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+kv+"\x00")) {
			continue
		}
		if !zombie(e.Name()) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(bytes.TrimRight(cmdline, "\x00")), "\x00", " "))
		}
	}
	return out
}

// zombie reports whether process pid has exited and waits to be reaped.
func zombie(pid string) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// noneLeft fails the test when a process started from path is still alive.
func noneLeft(t *testing.T, path string) {
	t.Helper()
	if left := processesRunning(path); len(left) > 0 {
		t.Errorf("processes still running after the test:\n  %s", strings.Join(left, "\n  "))
	}
}
