// Package config loads, validates and edits weft's configuration: weft.toml and
// the de-facto standard .mcp.json files beside it.
package config

import "time"

// Transport kinds an upstream can use.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// Defaults used when the config file is silent.
const (
	DefaultListen          = "127.0.0.1:7777"
	DefaultSeparator       = "__"
	DefaultMaxTools        = 50
	DefaultMaxMessageBytes = 16 << 20
	DefaultTimeoutMS       = 30000
	DefaultDrainTimeout    = 30 * time.Second
	DefaultAutonomy        = AutonomySupervised
)

// Autonomy levels for servers managed by an AI through mcp_manage.
const (
	AutonomyReadOnly   = "read_only"
	AutonomySupervised = "supervised"
	AutonomyFull       = "full"
)

// Pinning modes for tool definitions. The empty string means strict.
const (
	PinningStrict = "strict"
	PinningWarn   = "warn"
)

// Config is the whole, merged configuration weft runs with.
type Config struct {
	// Path is the weft.toml this config was read from; edits go there. It may
	// name a file that does not exist yet.
	Path     string
	Gateway  Gateway
	Limits   Limits
	Security Security
	Breaker  Breaker
	// Servers holds every upstream by name: weft.toml entries, plus .mcp.json
	// entries whose names weft.toml does not use.
	Servers map[string]*Server
	// Agent holds [llm], [router.planning] and [prices].
	Agent Agent
	// Delegation holds [delegation].
	Delegation Delegation
	// Audit holds [audit] and Metrics holds [metrics] (observe.go).
	Audit   Audit
	Metrics Metrics
	// Agents holds every agent by name: [agents.NAME] tables and the files
	// of the agents directory (agents.go).
	Agents map[string]*AgentSpec
	// agentTables are the [agents] tables as decoded, resolved by Load
	// once the global servers are known.
	agentTables map[string]*agentFile
	overlay     map[string][]byte // agent files' content not yet written, by path
	// Warnings are non-fatal findings of Load (for example a server URL that
	// points to a private address while security.block_private_urls is off).
	Warnings []string
}

// Gateway configures weft's own MCP face ([gateway]).
type Gateway struct {
	Listen    string `toml:"listen"`    // host:port for `weft serve`
	Separator string `toml:"separator"` // between namespace and item name
	// ReadMCPJSON, when false, stops weft merging the .mcp.json files beside
	// weft.toml, in the working directory and in ~/.weft (nil means true).
	ReadMCPJSON *bool `toml:"read_mcp_json"`
	// Auth makes the HTTP face accept OAuth access tokens ([gateway.auth]).
	Auth *GatewayAuth `toml:"auth,omitempty"`
	// ReadyRequires names servers that must be active before /readyz
	// answers ready.
	ReadyRequires []string `toml:"ready_requires"`
	// The HTTP face's own limits (httpface.go has the defaults).
	MaxConnections     int      `toml:"max_connections"`      // open client connections
	IdleTimeout        Duration `toml:"idle_timeout"`         // keep-alive connection with no request
	BodyTimeout        Duration `toml:"body_timeout"`         // reading one request body
	MaxSessions        int      `toml:"max_sessions"`         // Streamable HTTP sessions
	SessionIdleTimeout Duration `toml:"session_idle_timeout"` // session nobody used
	// AgentsDir holds one directory per agent with its own weft.toml
	// (relative to weft.toml's directory; default "agents").
	AgentsDir string `toml:"agents_dir"`
	// DefaultAgent is the agent /mcp and a plain `weft mcp-server` serve:
	// empty for everything, "none" to serve named agents only.
	DefaultAgent string `toml:"default_agent"`
}

// Limits bounds what weft exposes and accepts ([limits]).
type Limits struct {
	MaxTools        int `toml:"max_tools"`
	MaxMessageBytes int `toml:"max_message_bytes"`
	// MaxConcurrentCalls bounds calls in flight across all servers.
	MaxConcurrentCalls int `toml:"max_concurrent_calls"`
	// DrainTimeout bounds the wait for in-flight calls on remove.
	DrainTimeout Duration `toml:"drain_timeout"`
	// PingInterval is how often each upstream is pinged to detect a hung
	// connection.
	PingInterval Duration `toml:"ping_interval"`
}

// Security holds the [security] table.
type Security struct {
	BlockPrivateURLs bool `toml:"block_private_urls"`
	// Autonomy is read_only, supervised (default) or full.
	Autonomy string `toml:"autonomy"`
	// Pinning is strict (default) or warn.
	Pinning string `toml:"pinning"`
	// HTTPTokenEnv names the environment variable holding the bearer token
	// required when the HTTP face binds a non-loopback address.
	HTTPTokenEnv string `toml:"http_token_env"`
	// MaxDelegationDepth refuses a call that has already passed through this
	// many wefts (default 3).
	MaxDelegationDepth int `toml:"max_delegation_depth"`
	// TokenStore is where OAuth tokens live: auto, keychain or file.
	TokenStore string `toml:"token_store"`
}

// Server is one upstream MCP server ([tools.mcp_servers.NAME]).
type Server struct {
	Name            string            `toml:"-"`
	Target          string            `toml:"target"`
	Args            []string          `toml:"args,omitempty"`
	Env             map[string]string `toml:"env,omitempty"`
	Cwd             string            `toml:"cwd,omitempty"`
	Type            string            `toml:"type,omitempty"`
	Headers         map[string]string `toml:"headers,omitempty"`
	TimeoutMS       int               `toml:"timeout_ms,omitempty"`
	Enabled         *bool             `toml:"enabled,omitempty"`
	Prefix          *string           `toml:"prefix,omitempty"`
	AllowedTools    []string          `toml:"allowed_tools,omitempty"`
	DeniedTools     []string          `toml:"denied_tools,omitempty"`
	ProtocolVersion string            `toml:"protocol_version,omitempty"`
	InheritEnv      bool              `toml:"inherit_env,omitempty"`
	// MaxConcurrentCalls bounds this server's calls in flight (0: no own limit).
	MaxConcurrentCalls int `toml:"max_concurrent_calls,omitempty"`
	// FailureThreshold and ResetTimeout override [breaker] for this server.
	FailureThreshold int      `toml:"failure_threshold,omitempty"`
	ResetTimeout     Duration `toml:"reset_timeout,omitempty"`
	// OAuth configures how weft logs in to a protected remote server.
	OAuth *OAuth `toml:"oauth,omitempty"`
	// PerUser runs one instance of a stdio server per signed-in user, with
	// that user's stored secrets in its environment (peruser.go).
	PerUser bool `toml:"per_user,omitempty"`
	// IdleTimeout stops a per-user instance nobody called for this long.
	IdleTimeout Duration `toml:"idle_timeout,omitempty"`
	// Source is the file the entry came from (weft.toml or a .mcp.json).
	Source string `toml:"-"`
}
