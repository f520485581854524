//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/atomicfile"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// startTimeout bounds how long weft or an upstream may take to come up.
const startTimeout = 3 * time.Minute

// entry is one upstream in a generated weft.toml.
type entry struct {
	name   string
	target string
	args   []string
}

// writeConfig writes a weft.toml for the given upstreams atomically, as an
// editor would, so that a running weft reloads it once. max_tools is set so
// high that every tool is listed; extra tables ([audit], [metrics]) go
// before the servers.
func writeConfig(path string, entries []entry, extra ...string) error {
	var b strings.Builder
	b.WriteString("[limits]\nmax_tools = 1000000\n")
	for _, x := range extra { // whole tables, before the servers
		b.WriteString("\n" + x)
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "\n[tools.mcp_servers.%s]\ntarget = %s\n", e.name, strconv.Quote(e.target))
		if len(e.args) > 0 {
			q := make([]string, len(e.args))
			for i, a := range e.args {
				q[i] = strconv.Quote(a)
			}
			fmt.Fprintf(&b, "args = [%s]\n", strings.Join(q, ", "))
		}
	}
	return atomicfile.WriteFile(path, []byte(b.String()), 0o600)
}

// benchClient is the go-sdk client every measurement uses, direct or
// through weft alike.
func benchClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "weft-bench", Version: "1.0.0"}, nil)
}

// connectStdio launches bin as a stdio MCP server and connects to it; the
// child's stderr goes to the workspace log called name.
func (w *workspace) connectStdio(ctx context.Context, name, bin string, args ...string) (*mcp.ClientSession, error) {
	cs, _, err := w.connectStdioPID(ctx, name, "", bin, args...)
	return cs, err
}

// connectStdioPID is connectStdio that also returns the child's pid, whose
// CPU and memory the overhead scenario reads; rev pins the protocol
// revision the client asks for ("" lets go-sdk pick, its newest first).
func (w *workspace) connectStdioPID(ctx context.Context, name, rev, bin string, args ...string) (*mcp.ClientSession, int, error) {
	cmd := w.command(bin, args...)
	logf, err := w.logFile(name)
	if err != nil {
		return nil, 0, err
	}
	cmd.Stderr = logf // the child holds its own copy once started
	defer logf.Close()
	cs, err := benchClient().Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: stopGrace}, sessionOptions(rev))
	if err != nil {
		return nil, 0, fmt.Errorf("connect to %s over stdio: %w (see %s.log in the bench directory)", name, err, name)
	}
	return cs, cmd.Process.Pid, nil
}

// httpTransport keeps enough idle connections for the highest concurrency,
// so that neither side pays for reconnects.
var httpTransport = &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 256,
	IdleConnTimeout:     90 * time.Second,
}

// sessionOptions pins the revision a client asks for; "" is go-sdk's
// default client, which tries its newest revision first.
func sessionOptions(rev string) *mcp.ClientSessionOptions {
	if rev == "" {
		return nil
	}
	return &mcp.ClientSessionOptions{ProtocolVersion: rev}
}

// connectHTTP connects a default client to a Streamable HTTP endpoint.
func connectHTTP(ctx context.Context, url string) (*mcp.ClientSession, error) {
	return connectHTTPAs(ctx, url, "")
}

// connectHTTPAs is connectHTTP with the client asking for revision rev.
func connectHTTPAs(ctx context.Context, url, rev string) (*mcp.ClientSession, error) {
	t := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: httpTransport}}
	cs, err := benchClient().Connect(ctx, t, sessionOptions(rev))
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", url, err)
	}
	return cs, nil
}

// startServe starts `weft serve` on a free loopback port and returns it
// with its MCP endpoint once it listens (weft connects its upstreams first).
func (w *workspace) startServe(ctx context.Context, name, cfg string) (*proc, string, error) {
	return w.startURL(ctx, name, w.weft, "--config", cfg, "--log-level", "warn", "serve", "--listen", "127.0.0.1:0")
}

// startURL starts bin and returns it with the URL it prints once it
// listens; a process that never does is stopped.
func (w *workspace) startURL(ctx context.Context, name, bin string, args ...string) (*proc, string, error) {
	p, err := w.start(name, bin, args...)
	if err != nil {
		return nil, "", err
	}
	url, err := p.waitURL(ctx, startTimeout)
	if err != nil {
		p.stop()
		return nil, "", err
	}
	return p, url, nil
}

// adminBase turns weft's MCP endpoint URL into its admin base URL.
func adminBase(mcpURL string) string { return strings.TrimSuffix(mcpURL, gateway.Endpoint) }

// status reads weft's admin status endpoint.
func status(ctx context.Context, base string) (gateway.Status, error) {
	var st gateway.Status
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+gateway.StatusPath, nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, fmt.Errorf("read weft's status: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("read weft's status: %s", resp.Status)
	}
	return st, json.NewDecoder(resp.Body).Decode(&st)
}

// active counts the servers in st that are active.
func active(st gateway.Status) int {
	n := 0
	for _, s := range st.Servers {
		if s.Status == hub.StatusActive {
			n++
		}
	}
	return n
}

// waitListed polls the admin status until servers are active and the
// catalog lists at least tools upstream tools.
func waitListed(ctx context.Context, base string, servers, tools int) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := status(ctx, base)
		if err == nil && active(st) >= servers && len(st.Listed) >= tools {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d active servers and %d listed tools (last: %d, %d, err %v): %w",
				servers, tools, active(st), len(st.Listed), err, ctx.Err())
		case <-tick.C:
		}
	}
}

// waitReady polls weft's /readyz?all every 5 ms until every configured
// server is active with its tools listed, as a script that starts weft
// and then uses its tools would (the admin status would answer too, with
// every listed name, at a cost to both sides on each poll).
func waitReady(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	url := base + gateway.ReadyzPath + "?" + gateway.ReadyAllQuery
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for weft's %s: %w", url, ctx.Err())
		case <-tick.C:
		}
	}
}

// listTools lists every tool, following pagination, and says how many.
func listTools(ctx context.Context, cs *mcp.ClientSession) (int, error) {
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return n, fmt.Errorf("tools/list: %w", err)
		}
		n++
	}
	return n, nil
}
