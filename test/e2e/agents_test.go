//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/llm/llmtest"
	"github.com/weft-dev/weft/internal/testutil"
)

// agentsConfig is weft.toml for the agents tests: three global servers
// (everything and two memories), five agents sharing them, and one agent
// (notes) running its own memory with another file.
func agentsConfig(t *testing.T, e *env) string {
	everything, memory := npmBin(t, "mcp-server-everything"), npmBin(t, "mcp-server-memory")
	node := npmBin(t, "node")
	path := filepath.Dir(node) + ":" + os.Getenv("PATH")
	var b strings.Builder
	fmt.Fprintf(&b, "[audit]\nfile = %q\n\n", filepath.Join(e.home, "audit.jsonl"))
	fmt.Fprintf(&b, "[tools.mcp_servers.everything]\ntarget = %q\nenv = { PATH = %q }\n\n", everything, path)
	for _, n := range []string{"memory", "memory2"} {
		fmt.Fprintf(&b, "[tools.mcp_servers.%s]\ntarget = %q\nenv = { PATH = %q, MEMORY_FILE_PATH = %q }\n\n", n, memory, path, filepath.Join(e.home, n+".jsonl"))
	}
	fmt.Fprintf(&b, `[agents.coder]
servers = ["everything"]
denied_tools = ["*long-running*"]
token = "coder-secret"

[agents.notes]
servers = []
[agents.notes.mcp_servers.memory]
env = { MEMORY_FILE_PATH = %q }

[agents.a1]
[agents.a2]
[agents.a3]
[agents.a4]
`, filepath.Join(e.home, "notes.jsonl"))
	return b.String()
}

// connectAs opens a client session on an agent's endpoint (or /mcp for
// ""), with a bearer token when one is given. coder's client speaks
// 2025-11-25 and so holds a session; the others speak the SDK's newest
// revision, statelessly.
func connectAs(t *testing.T, ctx context.Context, s *served, agent, token string) (*mcp.ClientSession, error) {
	t.Helper()
	url := s.url
	if agent != "" {
		url = strings.TrimSuffix(s.url, "/mcp") + "/agents/" + agent + "/mcp"
	}
	tr := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer(token)}
	}
	var opts *mcp.ClientSessionOptions
	if agent == "coder" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-" + agent}, nil).Connect(ctx, tr, opts)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func agentCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (string, bool, error) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

func TestAgentsViewsIsolationAndSharedConnections(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, agentsConfig(t, e))
	s := e.serve()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Five agents over three global servers, one with its own memory: four
	// upstream processes, not eighteen.
	if kids := childrenOf(s.cmd.Process.Pid); len(kids) != 4 {
		t.Errorf("weft runs %d upstream processes; want 4 (3 shared globals + notes' own memory)", len(kids))
	}

	coder, err := connectAs(t, ctx, s, "coder", "coder-secret")
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(t, coder)
	if !has(names, "everything__echo") || has(names, "everything__trigger-long-running-operation") {
		t.Errorf("coder lists %v; want everything's tools but the long-running one", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "memory") {
			t.Errorf("coder lists %s, a server outside its view", n)
		}
	}
	if got, isErr, err := agentCall(t, ctx, coder, "everything__echo", map[string]any{"message": "as coder"}); err != nil || isErr || !strings.Contains(got, "as coder") {
		t.Errorf("coder's echo = %q %v %v", got, isErr, err)
	}
	// Nothing outside the view is reached or named: not by search, not
	// through weft__call_tool, not by a direct call.
	if got, _, err := agentCall(t, ctx, coder, "weft__search_tools", map[string]any{"query": "graph"}); err != nil || strings.Contains(got, "memory") {
		t.Errorf("coder's search for graph = %q %v; want no memory tool", got, err)
	}
	got, isErr, err := agentCall(t, ctx, coder, "weft__call_tool", map[string]any{"name": "memory__read_graph"})
	if err != nil || !isErr || !strings.Contains(got, `unknown tool "memory__read_graph" for agent coder`) {
		t.Errorf("coder's weft__call_tool memory__read_graph = %q %v %v", got, isErr, err)
	}
	if _, _, err := agentCall(t, ctx, coder, "memory__read_graph", map[string]any{}); err == nil || !strings.Contains(err.Error(), "for agent coder") {
		t.Errorf("coder's direct call of memory__read_graph: err = %v; want unknown tool for agent coder", err)
	}
	if _, _, err := agentCall(t, ctx, coder, "everything__trigger-long-running-operation", map[string]any{"duration": 0.1, "steps": 1}); err == nil {
		t.Error("coder called a tool its denied_tools hides")
	}

	notes, err := connectAs(t, ctx, s, "notes", "")
	if err != nil {
		t.Fatal(err)
	}
	names = toolNames(t, notes)
	if !has(names, "memory__create_entities") || has(names, "everything__echo") || has(names, "memory2__read_graph") {
		t.Errorf("notes lists %v; want only memory's tools under their usual names", names)
	}
	if _, isErr, err := agentCall(t, ctx, notes, "memory__create_entities", map[string]any{"entities": []any{
		map[string]any{"name": "only-notes", "entityType": "note", "observations": []any{"x"}}}}); err != nil || isErr {
		t.Fatalf("notes' create_entities: %v %v", isErr, err)
	}
	if got, _, _ := agentCall(t, ctx, notes, "memory__read_graph", map[string]any{}); !strings.Contains(got, "only-notes") {
		t.Errorf("notes' graph = %q; want its entity", got)
	}
	// The default face sees the global memory, which notes' instance never
	// wrote to, and no instance's tools.
	all, err := connectAs(t, ctx, s, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := agentCall(t, ctx, all, "memory__read_graph", map[string]any{}); strings.Contains(got, "only-notes") {
		t.Errorf("the global memory holds notes' entity: %q", got)
	}
	for _, n := range toolNames(t, all) {
		if strings.Contains(n, "@") {
			t.Errorf("/mcp lists an agent's instance tool %s", n)
		}
	}
	checkResourcesStayInView(t, ctx, coder, notes)
	checkAgentsListLive(t, e)
	// The audit log names the agent each call was made as.
	byAgent := map[string]bool{}
	for _, rec := range testutil.ReadJSONLines(t, filepath.Join(e.home, "audit.jsonl")) {
		if rec["kind"] == "tool_call" {
			a, _ := rec["agent"].(string)
			byAgent[a] = true
		}
	}
	if !byAgent["coder"] || !byAgent["notes"] || !byAgent[""] {
		t.Errorf("audit log's agents of tool calls = %v; want coder, notes and the default face's none", byAgent)
	}
}

// checkAgentsListLive asks the running weft for its agents.
func checkAgentsListLive(t *testing.T, e *env) {
	t.Helper()
	out, stderr, code := e.run("agents", "list", "--json")
	var rep struct {
		Source string `json:"source"`
		Agents []struct {
			Name         string   `json:"name"`
			Servers      []string `json:"servers"`
			ToolsExposed int      `json:"tools_exposed"`
			ToolsTotal   int      `json:"tools_total"`
			Sessions     int      `json:"sessions"`
		} `json:"agents"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("agents list --json: code %d, %s %s", code, out, stderr)
	}
	if rep.Source != "live" || len(rep.Agents) != 6 {
		t.Fatalf("agents list = %+v; want 6 live agents", rep)
	}
	coder := rep.Agents[4] // sorted: a1 … a4, coder, notes
	if coder.Name != "coder" || strings.Join(coder.Servers, ",") != "everything" || coder.Sessions != 1 ||
		coder.ToolsExposed != coder.ToolsTotal-1 {
		t.Errorf("coder = %+v; want everything, one session, all tools but the denied one", coder)
	}
	out, _, code = e.run("agents", "show", "notes")
	if code != 0 || !strings.Contains(out, "memory (own instance memory@notes)") || !strings.Contains(out, "memory__read_graph") {
		t.Errorf("agents show notes:\n%s", out)
	}
	out, _, code = e.run("mcp", "list", "--agent", "coder")
	if code != 0 || !strings.Contains(out, "everything") || strings.Contains(out, "memory") {
		t.Errorf("mcp list --agent coder:\n%s", out)
	}
}

// checkResourcesStayInView reads one of everything's resources as coder
// (which has everything) and as notes (which has not).
func checkResourcesStayInView(t *testing.T, ctx context.Context, coder, notes *mcp.ClientSession) {
	t.Helper()
	var uri string
	everything := map[string]bool{}
	for r, err := range coder.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if uri == "" {
			uri = r.URI
		}
		everything[r.URI] = true
	}
	if uri == "" {
		t.Fatal("coder lists no resource of everything")
	}
	if _, err := coder.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
		t.Errorf("coder reads %s: %v", uri, err)
	}
	for r, err := range notes.Resources(ctx, nil) {
		if err == nil && everything[r.URI] {
			t.Errorf("notes lists resource %s of a server outside its view", r.URI)
		}
	}
	if _, err := notes.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || strings.Contains(err.Error(), "everything") {
		t.Errorf("notes reads %s: err = %v; want resource not found, naming no server", uri, err)
	}
	for p, err := range notes.Prompts(ctx, nil) {
		if err == nil && !strings.HasPrefix(p.Name, "memory__") {
			t.Errorf("notes lists prompt %s of a server outside its view", p.Name)
		}
	}
}

func TestAgentTokensServeOnlyTheirAgent(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, agentsConfig(t, e))
	e.noSettle = true
	s := e.serve()
	base := strings.TrimSuffix(s.url, "/mcp")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	hdr := func(token string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
		if token != "" {
			h["Authorization"] = "Bearer " + token
		}
		return h
	}
	for _, tc := range []struct {
		path, token string
		want        int
	}{
		{"/agents/coder/mcp", "coder-secret", http.StatusOK},
		{"/agents/coder/mcp", "", http.StatusUnauthorized},
		{"/agents/coder/mcp", "wrong", http.StatusUnauthorized},
		{"/agents/notes/mcp", "coder-secret", http.StatusForbidden},
		{"/mcp", "coder-secret", http.StatusForbidden},
		{"/admin/status", "coder-secret", http.StatusForbidden},
		{"/agents/notes/mcp", "", http.StatusOK},
		{"/agents/ghost/mcp", "", http.StatusNotFound},
	} {
		if code, body := request(t, http.MethodPost, base+tc.path, init, hdr(tc.token)); code != tc.want {
			t.Errorf("POST %s with token %q = %d %s; want %d", tc.path, tc.token, code, body, tc.want)
		}
	}
}

func TestMCPServerStdioAsAgent(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, agentsConfig(t, e))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(weftBinary(t), "--config", e.config, "mcp-server", "--agent", "coder", "--settle", "30s")
	cmd.Env = e.environ()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := toolNames(t, cs)
	if !has(names, "everything__echo") || has(names, "memory__read_graph") {
		t.Errorf("weft mcp-server --agent coder lists %v; want coder's view", names)
	}
	out, stderr, code := e.run("mcp-server", "--agent", "ghost")
	if code == 0 || !strings.Contains(stderr, `no such agent "ghost"`) {
		t.Errorf("mcp-server --agent ghost: code %d, %q %q", code, out, stderr)
	}
}

// The guide's `claude mcp add coder -- weft mcp-server --agent coder`, with
// the real Claude Code: `claude mcp list` shows coder connected.
func TestClaudeCodeConnectsAsAgent(t *testing.T) {
	claude := npmBin(t, "claude")
	e := newEnv(t)
	// The guide's command names no config: weft finds ~/.weft/weft.toml.
	e.config = filepath.Join(e.home, ".weft", "weft.toml")
	if err := os.MkdirAll(filepath.Dir(e.config), 0o700); err != nil {
		t.Fatal(err)
	}
	e.writeConfig(t, agentsConfig(t, e))
	bin := filepath.Join(e.home, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(weftBinary(t), filepath.Join(bin, "weft")); err != nil {
		t.Fatal(err)
	}
	env := append(e.claudeEnv(), "PATH="+bin+":"+os.Getenv("PATH"))
	out := e.claudeWith(claude, e.home, env, "mcp", "add", "coder", "--", "weft", "mcp-server", "--agent", "coder")
	if !strings.Contains(out, "Added stdio MCP server coder") {
		t.Fatalf("claude mcp add: %s", out)
	}
	out = e.claudeWith(claude, e.home, env, "mcp", "list")
	if !strings.Contains(out, "coder:") || !strings.Contains(out, "Connected") {
		t.Fatalf("claude mcp list does not show coder connected:\n%s", out)
	}
}

// `weft run --agent` runs with the agent's tools, model and sender: a tool
// outside its view is unknown to it, and its name is the sender in --json.
func TestRunAsAgent(t *testing.T) {
	srv := llmtest.New(t, llmtest.OpenAI,
		llmtest.Reply{Calls: []llmtest.Call{{Name: "other__echo", Args: `{"text":"x"}`}}},
		llmtest.Reply{Calls: []llmtest.Call{{Name: "fake__echo", Args: `{"text":"y"}`}}},
		llmtest.Reply{Text: "done"},
	)
	e := newEnv(t)
	fake := testutil.FakeServerBinary(t)
	e.writeConfig(t, agentConfig(t, "openai", srv.URL(), "")+fmt.Sprintf(
		"\n[tools.mcp_servers.other]\ntarget = %q\n\n[agents.coder]\nservers = [\"fake\"]\n[agents.coder.llm]\nmodel = \"coder-model\"\n", fake))
	out, errOut, code := e.run("run", "echo", "--agent", "coder", "--json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var res struct {
		Steps []struct {
			Sender  string                         `json:"sender_id"`
			Actions []struct{ Observation string } `json:"actions"`
		} `json:"steps"`
		Totals struct {
			BySender map[string]float64 `json:"by_sender"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Steps) != 3 {
		t.Fatalf("stdout: %v\n%s", err, out)
	}
	if res.Steps[0].Sender != "coder" {
		t.Errorf("sender = %q; want the agent's name", res.Steps[0].Sender)
	}
	if obs := res.Steps[0].Actions[0].Observation; !strings.Contains(obs, `unknown tool "other__echo"`) {
		t.Errorf("other__echo as coder observed %q; want an unknown tool", obs)
	}
	if obs := res.Steps[1].Actions[0].Observation; !strings.Contains(obs, "fake:y") {
		t.Errorf("fake__echo as coder observed %q", obs)
	}
	for _, r := range srv.Requests() {
		if r.Model != "coder-model" || r.HasTool("other__echo") || !r.HasTool("fake__echo") {
			t.Errorf("LLM request %d: model %q, tools %v; want coder's model and view", r.Index, r.Model, r.Tools)
		}
	}
}

// The guide's `weft client add cursor --agent coder` writes an entry named
// coder that starts weft as that agent; an unknown agent is refused.
func TestClientAddAsAgent(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, "[agents.coder]\nservers = []\n")
	out, stderr, code := e.run("client", "add", "cursor", "--agent", "coder")
	if code != 0 {
		t.Fatalf("client add: %d %s %s", code, out, stderr)
	}
	b, err := os.ReadFile(filepath.Join(e.home, ".cursor", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		MCPServers map[string]struct {
			Args []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if args := file.MCPServers["coder"].Args; !strings.Contains(strings.Join(args, " "), "mcp-server --config "+e.config+" --agent coder") {
		t.Errorf("cursor's coder entry runs %v", args)
	}
	if _, stderr, code := e.run("client", "add", "cursor", "--agent", "ghost"); code == 0 || !strings.Contains(stderr, `no such agent "ghost"`) {
		t.Errorf("client add --agent ghost: %d %s", code, stderr)
	}
}

// `weft delegate --agent coder` uses coder's [delegation] settings, and the
// delegated Claude Code reaches weft as coder.
func TestDelegateAsAgent(t *testing.T) {
	e := newEnv(t)
	e.writeConfig(t, fmt.Sprintf("[delegation]\nclaude_command = %q\nfallback = [\"claude\"]\nmodel = \"global-model\"\n\n"+
		"[agents.coder]\nservers = []\n[agents.coder.delegation]\nmodel = \"coder-model\"\n", testutil.FakeClaudeBinary(t)))
	out, stderr, code := e.run("delegate", "--agent", "coder", "write it")
	if code != 0 {
		t.Fatalf("delegate --agent coder: %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "--model coder-model") || !strings.Contains(out, `"--agent","coder"`) {
		t.Errorf("the delegated Claude Code ran with:\n%s\nwant coder's model and weft mcp-server --agent coder", out)
	}
	if _, stderr, code := e.run("delegate", "--agent", "ghost", "x"); code == 0 || !strings.Contains(stderr, `no such agent "ghost"`) {
		t.Errorf("delegate --agent ghost: %d %s", code, stderr)
	}
}
