package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const agentsExample = `
[tools.mcp_servers.memory]
target = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
env = { MEMORY_FILE_PATH = "/tmp/global.json" }

[tools.mcp_servers.everything]
target = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]

[llm]
provider = "openai"
model = "gpt-4o-mini"

[agents.coder]
servers = ["everything"]
denied_tools = ["everything__*long*"]
max_tools = 5
autonomy = "read_only"
token_env = "CODER_TOKEN"
[agents.coder.llm]
model = "gpt-4.1"
[agents.coder.router.planning]
max_planning_cost_usd = 0.5
[agents.coder.delegation]
max_turns = 4

# Shares the global connection: only the tool filter differs.
[agents.coder.mcp_servers.memory]
allowed_tools = ["read_graph"]

[agents.notes]
# Its own memory file: a separate instance of the memory server.
[agents.notes.mcp_servers.memory]
env = { MEMORY_FILE_PATH = "/tmp/notes.json" }
# A server only this agent has.
[agents.notes.mcp_servers.scratch]
target = "npx"
args = ["-y", "@modelcontextprotocol/server-memory"]
`

func TestAgentsResolveSharedOverrideAndOwnServers(t *testing.T) {
	dir := isolate(t)
	cfg, err := LoadData(filepath.Join(dir, "weft.toml"), []byte(agentsExample))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.AgentNames(), ","); got != "coder,notes" {
		t.Fatalf("agents = %s", got)
	}
	coder := cfg.Agents["coder"]
	if got := strings.Join(coder.ServerNames(), ","); got != "everything,memory" {
		t.Errorf("coder's servers = %s; want everything,memory", got)
	}
	if m := coder.Uses["memory"]; !m.Shared() || m.Instance != "memory" || strings.Join(m.AllowedTools, ",") != "read_graph" {
		t.Errorf("coder's memory = %+v; want the shared global connection filtered to read_graph", m)
	}
	if coder.MaxTools != 5 || coder.Autonomy != AutonomyReadOnly || coder.TokenEnv != "CODER_TOKEN" {
		t.Errorf("coder's limits = %d %s %s", coder.MaxTools, coder.Autonomy, coder.TokenEnv)
	}
	if coder.Agent.LLM.Model != "gpt-4.1" || coder.Agent.LLM.Provider != "openai" || coder.Agent.Planning.MaxPlanningCostUSD != 0.5 {
		t.Errorf("coder's llm = %+v planning = %+v; want its model over the global provider", coder.Agent.LLM, coder.Agent.Planning)
	}
	if coder.Delegation.MaxTurns != 4 || coder.Delegation.ClaudeCommand != DefaultDelegationCommand {
		t.Errorf("coder's delegation = %+v", coder.Delegation)
	}
	notes := cfg.Agents["notes"]
	mem := notes.Uses["memory"]
	if mem.Shared() || mem.Instance != InstanceName("memory", "notes") || mem.Namespace != "memory" {
		t.Fatalf("notes' memory = %+v; want its own instance seen as memory", mem)
	}
	if mem.Config.Env["MEMORY_FILE_PATH"] != "/tmp/notes.json" || strings.Join(mem.Config.Args, " ") != "-y @modelcontextprotocol/server-memory" {
		t.Errorf("notes' memory instance = %+v; want the global entry with its env", mem.Config)
	}
	if s := notes.Uses["scratch"]; s.Shared() || s.Instance != "scratch@notes" {
		t.Errorf("notes' scratch = %+v; want an agent-only instance", s)
	}
	hub := cfg.HubServers()
	if len(hub) != 4 || hub["memory@notes"] == nil || hub["scratch@notes"] == nil {
		t.Errorf("hub servers = %v; want the 2 globals and notes' 2 instances", len(hub))
	}
	if _, _, ok := SplitInstance("memory"); ok || ValidName(InstanceName("memory", "notes")) {
		t.Error("an instance name must be one no configured server can take")
	}
}

func TestAgentFileInAgentsDir(t *testing.T) {
	dir := isolate(t)
	writeFile(t, filepath.Join(dir, "agents", "coder", "weft.toml"), `
servers = ["memory"]
allowed_tools = ["memory__read_*"]
`)
	writeFile(t, filepath.Join(dir, "elsewhere", "ops", "weft.toml"), `servers = []`)
	cfg, err := LoadData(filepath.Join(dir, "weft.toml"), []byte(`
[tools.mcp_servers.memory]
target = "npx"
`))
	if err != nil {
		t.Fatal(err)
	}
	a := cfg.Agents["coder"]
	if a == nil || a.Source != filepath.Join(dir, "agents", "coder", "weft.toml") || a.Uses["memory"] == nil {
		t.Fatalf("agent from file = %+v", a)
	}
	cfg, err = LoadData(filepath.Join(dir, "weft.toml"), []byte("[gateway]\nagents_dir = \"elsewhere\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.AgentNames(), ","); got != "ops" {
		t.Errorf("agents with agents_dir = %q; want ops", got)
	}
}

func TestAgentValidationNamesAgentAndKey(t *testing.T) {
	for _, tc := range []struct{ name, toml, file, want string }{
		{"unknown server", "[agents.coder]\nservers = [\"nope\"]\n", "", `agent "coder": servers: "nope" is not a configured server`},
		{"unknown key", "[agents.coder]\nmax_tool = 3\n", "", `unknown key "agents.coder.max_tool"`},
		{"unknown key lists keys", "[agents.coder]\nmax_tool = 3\n", "", "known keys there: servers, mcp_servers, allowed_tools"},
		{"unknown key in file", "", "max_tool = 3\n", `coder/weft.toml:1:1: unknown key "max_tool"`},
		{"autonomy", "[agents.coder]\nautonomy = \"yolo\"\n", "", `agent "coder": autonomy: "yolo"`},
		{"glob", "[agents.coder]\ndenied_tools = [\"[\"]\n", "", `agent "coder": denied_tools "["`},
		{"own server without target", "[agents.coder.mcp_servers.x]\nargs = [\"a\"]\n", "", `agent "coder": mcp_servers.x: target is missing`},
		{"both places", "[agents.coder]\n", "servers = []\n", `agent "coder" is defined both`},
		{"default agent", "[gateway]\ndefault_agent = \"ghost\"\n", "", `gateway.default_agent names "ghost"`},
		{"name", "[agents.\"a b\"]\n", "", `agent "a b": the name must be`},
		{"token twice", "[agents.coder]\ntoken = \"x\"\ntoken_env = \"Y\"\n", "", `agent "coder": token: both`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := isolate(t)
			if tc.file != "" {
				writeFile(t, filepath.Join(dir, "agents", "coder", "weft.toml"), tc.file)
			}
			_, err := LoadData(filepath.Join(dir, "weft.toml"), []byte(tc.toml))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// The Agents examples of docs/guides/configuration.md load and mean what
// the guide says: coder shares memory, notes runs its own, reviewer's file
// is found in the agents directory.
func TestConfigurationGuideAgentsExample(t *testing.T) {
	rest := guideExample(t, "## Agents:")
	file := guideExample(t, "**One file per agent.**")
	dir := isolate(t)
	writeFile(t, filepath.Join(dir, "agents", "reviewer", "weft.toml"), file)
	cfg, err := Load(writeFile(t, filepath.Join(dir, "weft.toml"), rest))
	if err != nil {
		t.Fatal(err)
	}
	coder, notes, reviewer := cfg.Agents["coder"], cfg.Agents["notes"], cfg.Agents["reviewer"]
	if coder == nil || notes == nil || reviewer == nil {
		t.Fatalf("agents = %v; want coder, notes and reviewer", cfg.AgentNames())
	}
	if m := coder.Uses["memory"]; !m.Shared() || len(m.AllowedTools) != 2 {
		t.Errorf("coder's memory = %+v; want the shared connection, filtered", m)
	}
	if m := notes.Uses["memory"]; m.Shared() || m.Config.Env["MEMORY_FILE_PATH"] != "/home/me/.weft/notes.jsonl" {
		t.Errorf("notes' memory = %+v; want its own instance", m)
	}
	if len(notes.Uses) != 1 {
		t.Errorf("notes uses %v; want memory only", notes.ServerNames())
	}
	if s := reviewer.Uses["scratch"]; s == nil || s.Shared() || reviewer.Uses["everything"] == nil {
		t.Errorf("reviewer = %+v; want everything and its own scratch", reviewer.Uses)
	}
	if coder.MaxTools != 20 || coder.Autonomy != AutonomyReadOnly || coder.Agent.LLM.Model != "gpt-4.1" || coder.Delegation.MaxTurns != 4 {
		t.Errorf("coder's settings = %+v", coder)
	}
	if got := len(cfg.HubServers()); got != 4 {
		t.Errorf("the hub runs %d servers; want 2 global + notes' memory + reviewer's scratch", got)
	}
}
