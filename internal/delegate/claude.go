package delegate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/internal/procgroup"
)

// maxLine bounds one stream-json line (the default message limit).
const maxLine = 16 << 20

// claudeRun is one Claude Code delegation.
type claudeRun struct {
	cfg   *Config
	req   Request
	depth int
	emit  func(Event)
}

// args builds Claude Code's command line; the task goes after "--" so a
// task starting with "-" is never read as a flag.
func (c *claudeRun) args(mcpConfig string) []string {
	turns := c.req.MaxTurns
	if turns < MinTurns {
		turns = MinTurns
	}
	args := []string{"-p", "--output-format", "stream-json", "--verbose",
		"--max-turns", strconv.Itoa(turns), "--mcp-config", mcpConfig, "--strict-mcp-config"}
	if len(c.req.AllowedTools) > 0 {
		args = append(args, "--allowedTools", strings.Join(c.req.AllowedTools, ","))
	}
	if len(c.req.ExcludedTools) > 0 {
		args = append(args, "--disallowedTools", strings.Join(c.req.ExcludedTools, ","))
	}
	if c.req.Model != "" {
		args = append(args, "--model", c.req.Model)
	}
	return append(args, "--", c.req.Task)
}

// delegateSettle bounds how long the delegate's weft waits for its servers'
// first connection attempts before it answers Claude Code.
const delegateSettle = "15s"

// writeMCPConfig writes the --mcp-config file registering weft itself, in a
// private temp dir the caller removes.
func (c *claudeRun) writeMCPConfig() (string, func(), error) {
	dir, err := os.MkdirTemp("", "weft-delegate-")
	if err != nil {
		return "", nil, fmt.Errorf("create a temp dir for the delegate's MCP config: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	doc := map[string]any{"mcpServers": map[string]any{"weft": map[string]any{"command": c.cfg.WeftBinary, "args": c.weftArgs()}}}
	b, err := json.Marshal(doc)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "mcp.json"), b, 0o600)
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("write the delegate's MCP config: %w", err)
	}
	return filepath.Join(dir, "mcp.json"), cleanup, nil
}

// weftArgs are the arguments of the weft Claude Code starts as its MCP
// server: weft's MCP face, as the request's agent when it names one.
func (c *claudeRun) weftArgs() []string {
	// --settle: claude -p lists weft's tools once, at its start, so the
	// child weft lets its upstreams connect first (bounded).
	args := []string{"mcp-server", "--settle", delegateSettle}
	if c.req.Agent != "" {
		args = append(args, "--agent", c.req.Agent)
	}
	if c.cfg.WeftConfig != "" {
		args = append(args, "--config", c.cfg.WeftConfig)
	}
	return args
}

// maxTokensEnv caps each of Claude Code's model replies: it has no flag
// for it, only this variable.
const maxTokensEnv = "CLAUDE_CODE_MAX_OUTPUT_TOKENS"

// environ is Claude Code's environment: weft's (or the configured one),
// the delegation depth, and the reply cap when one is set.
func (c *claudeRun) environ() []string {
	env := append(c.cfg.environ(), DepthEnv+"="+strconv.Itoa(c.depth))
	if c.req.MaxTokens > 0 {
		env = append(env, maxTokensEnv+"="+strconv.Itoa(c.req.MaxTokens))
	}
	return env
}

// run starts Claude Code in its own process group, relays its stream and
// returns its answer and what it reported spending (also when it failed).
// ctx ending kills the whole group.
func (c *claudeRun) run(ctx context.Context) (string, float64, error) {
	file, cleanup, err := c.writeMCPConfig()
	if err != nil {
		return "", 0, err
	}
	defer cleanup()
	cmd := exec.Command(c.req.Command, c.args(file)...)
	cmd.Env = c.environ()
	cmd.Dir = c.cfg.Dir
	stderr := &tail{n: 4096}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, fmt.Errorf("delegate stdout: %w", err)
	}
	start := time.Now()
	group, err := procgroup.Start(cmd)
	if err != nil {
		return "", 0, &SubprocessError{Command: c.req.Command, ExitCode: -1, Err: err, Reason: "cannot start it; install Claude Code or set [delegation] claude_command"}
	}
	defer group.Close()
	kill := func() { _ = group.Kill() }
	stop := context.AfterFunc(ctx, kill)
	defer stop()

	res, perr := c.read(stdout)
	if perr != nil {
		kill() // garbage or an oversized line: nothing more will make sense
	}
	werr := cmd.Wait()
	kill() // grandchildren (weft mcp-server) must not outlive the delegation
	var cost float64
	if res != nil {
		cost = res.CostUSD
	}
	if ctx.Err() != nil {
		return "", cost, ctxError(ctx, "claude", time.Since(start))
	}
	answer, err := c.outcome(res, perr, werr, stderr.String())
	return answer, cost, err
}

// read consumes the stream, relaying events, until EOF or a line that does
// not parse.
func (c *claudeRun) read(r io.Reader) (*streamLine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var final *streamLine
	for sc.Scan() {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		evs, res, err := parseLine(line)
		if err != nil {
			return nil, &UnparseableOutputError{Command: c.req.Command, Raw: clip(string(line), 300), Err: err}
		}
		for _, e := range evs {
			c.emit(e)
		}
		if res != nil {
			final = res
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &UnparseableOutputError{Command: c.req.Command, Raw: "(a line over the limit)", Err: err}
	}
	return final, nil
}

// outcome turns the stream's end and the exit status into an answer or a
// typed failure.
func (c *claudeRun) outcome(res *streamLine, perr, werr error, stderr string) (string, error) {
	if perr != nil {
		return "", perr
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		return "", &SubprocessError{Command: c.req.Command, ExitCode: -1, Stderr: stderr, Err: werr}
	}
	switch {
	case res != nil && res.IsError || res != nil && res.Subtype != "" && res.Subtype != "success":
		reason := res.Subtype
		if len(res.Errors) > 0 {
			reason += ": " + strings.Join(res.Errors, "; ")
		} else if res.Result != "" {
			reason += ": " + clip(res.Result, 300)
		}
		return "", &SubprocessError{Command: c.req.Command, ExitCode: code, Stderr: stderr, Reason: reason}
	case code != 0:
		return "", &SubprocessError{Command: c.req.Command, ExitCode: code, Stderr: stderr}
	case res == nil:
		return "", &UnparseableOutputError{Command: c.req.Command, Raw: "(no result line)", Err: errors.New("the stream ended without a result")}
	}
	return res.Result, nil
}

// ctxError is the typed error for an attempt its context ended.
func ctxError(ctx context.Context, attempt string, elapsed time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{Attempt: attempt, Elapsed: elapsed}
	}
	return fmt.Errorf("delegation to %s cancelled: %w", attempt, context.Canceled)
}

// onceLocked serialises calls to f, so a progress sink never runs twice at
// once.
func onceLocked(f func(Event)) func(Event) {
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		f(e)
	}
}
