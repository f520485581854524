package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
)

// fileConfig is the shape of weft.toml.
type fileConfig struct {
	Gateway  Gateway          `toml:"gateway"`
	Limits   Limits           `toml:"limits"`
	Security Security         `toml:"security"`
	Breaker  Breaker          `toml:"breaker"`
	LLM      LLM              `toml:"llm"`
	Router   Router           `toml:"router"`
	Prices   map[string]Price `toml:"prices"`
	Tools    struct {
		MCPServers map[string]*Server `toml:"mcp_servers"`
	} `toml:"tools"`

	Delegation Delegation `toml:"delegation"` // delegate.go
	Audit      Audit      `toml:"audit"`      // observe.go
	Metrics    Metrics    `toml:"metrics"`

	Agents map[string]*agentFile `toml:"agents"` // agents.go
}

// ResolvePath finds weft.toml: the --config value if non-empty,
// else $WEFT_CONFIG, else ./weft.toml if it exists, else ~/.weft/weft.toml
// (returned even when missing).
func ResolvePath(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if env := os.Getenv("WEFT_CONFIG"); env != "" {
		return env
	}
	if st, err := os.Stat("weft.toml"); err == nil && !st.IsDir() {
		if abs, err := filepath.Abs("weft.toml"); err == nil {
			return abs
		}
		return "weft.toml"
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".weft", "weft.toml")
	}
	return filepath.Join(".weft", "weft.toml")
}

// Default returns the configuration weft runs with when no file says
// otherwise: default gateway and limits, no servers.
func Default() *Config {
	return &Config{
		Gateway: Gateway{Listen: DefaultListen, Separator: DefaultSeparator,
			MaxConnections: DefaultMaxConnections, IdleTimeout: Duration(DefaultIdleTimeout), BodyTimeout: Duration(DefaultBodyTimeout),
			MaxSessions: DefaultMaxSessions, SessionIdleTimeout: Duration(DefaultSessionIdleTimeout), AgentsDir: DefaultAgentsDir},
		Limits: Limits{MaxTools: DefaultMaxTools, MaxMessageBytes: DefaultMaxMessageBytes,
			MaxConcurrentCalls: DefaultMaxConcurrentCalls, DrainTimeout: Duration(DefaultDrainTimeout),
			PingInterval: Duration(DefaultPingInterval)},
		Breaker:  Breaker{FailureThreshold: DefaultFailureThreshold, ResetTimeout: Duration(DefaultResetTimeout)},
		Security: Security{Autonomy: DefaultAutonomy, Pinning: PinningStrict, MaxDelegationDepth: DefaultMaxDelegationDepth},
		Servers:  map[string]*Server{},
		Agents:   map[string]*AgentSpec{},
		Agent:    DefaultAgent(),

		Delegation: DefaultDelegation(),
		Audit:      defaultAudit(),
	}
}

// Load reads weft.toml at path (ResolvePath("") when path is empty), merges
// the .mcp.json files beside it, in the working directory and in ~/.weft,
// applies defaults and validates every server. A missing weft.toml is not an
// error: the result is the default config with Path set. Errors name the file
// and, where known, the line.
func Load(path string) (*Config, error) {
	if path == "" {
		path = ResolvePath("")
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot read config %s: %v; check the path and its permissions", path, pathErr(err))
	}
	return LoadData(path, data)
}

// LoadData is Load with the content of the weft.toml at path already read
// (nil for a missing file): a config change validates the edited content
// before it is written.
func LoadData(path string, data []byte) (*Config, error) { return loadData(path, data, nil) }

// loadData is LoadData with some agents' files given as content (overlay,
// by path): a change validates an agent's edited file before writing it.
func loadData(path string, data []byte, overlay map[string][]byte) (*Config, error) {
	cfg, err := parse(data, path)
	if err != nil {
		return nil, err
	}
	cfg.overlay = overlay
	for _, f := range cfg.MCPJSONFiles() {
		servers, err := readMCPJSON(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, s := range servers {
			if _, taken := cfg.Servers[s.Name]; !taken {
				s.TimeoutMS = defaultTimeout(s.TimeoutMS)
				cfg.Servers[s.Name] = s
			}
		}
	}
	cfg.dropSelf(currentSelf(cfg.Gateway.Listen))
	if err := cfg.validate(data, nil); err != nil {
		return nil, err
	}
	if err := cfg.loadAgents(cfg.agentTables); err != nil {
		return nil, err
	}
	if err := cfg.checkAuthAgents(); err != nil { // authagents.go
		return nil, err
	}
	cfg.agentTables, cfg.overlay = nil, nil
	return cfg, nil
}

// MCPJSONFiles lists the .mcp.json files Load merges: MCPJSONPaths, or none
// when [gateway] read_mcp_json is false.
func (c *Config) MCPJSONFiles() []string {
	if c.Gateway.ReadMCPJSON != nil && !*c.Gateway.ReadMCPJSON {
		return nil
	}
	return MCPJSONPaths(c.Path)
}

// parse decodes weft.toml bytes and applies defaults, without validating
// servers or reading .mcp.json files.
func parse(data []byte, path string) (*Config, error) {
	cfg := Default()
	cfg.Path = path
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var fc fileConfig
	if err := decodeStrict(data, &fc); err != nil {
		return nil, decodeErrorIn(reflect.TypeOf(fileConfig{}), path, err)
	}
	cfg.agentTables = fc.Agents
	setIf(&cfg.Gateway.AgentsDir, fc.Gateway.AgentsDir, fc.Gateway.AgentsDir != "")
	cfg.Gateway.DefaultAgent = fc.Gateway.DefaultAgent
	g, l, sec := fc.Gateway, fc.Limits, fc.Security
	if g.Listen != "" {
		cfg.Gateway.Listen = g.Listen
	}
	if err := g.Auth.validate(path); err != nil {
		return nil, err
	}
	cfg.Gateway.Auth = g.Auth
	if g.Separator != "" {
		cfg.Gateway.Separator = g.Separator
	}
	cfg.Gateway.ReadMCPJSON = g.ReadMCPJSON
	if err := applyHTTPFace(cfg, g, path); err != nil {
		return nil, err
	}
	switch {
	case l.MaxTools < 0:
		return nil, invalidf("%s: limits.max_tools is %d; use a positive number (0 means the default %d)", path, l.MaxTools, DefaultMaxTools)
	case l.MaxTools > 0:
		cfg.Limits.MaxTools = l.MaxTools
	}
	switch {
	case l.MaxMessageBytes < 0:
		return nil, invalidf("%s: limits.max_message_bytes is %d; use a positive number (0 means the default %d)", path, l.MaxMessageBytes, DefaultMaxMessageBytes)
	case l.MaxMessageBytes > 0:
		cfg.Limits.MaxMessageBytes = l.MaxMessageBytes
	}
	if err := applyReliability(cfg, &fc, path); err != nil {
		return nil, err
	}
	if err := applyAgent(cfg, &fc, path); err != nil {
		return nil, err
	}
	if err := applyDelegation(cfg, fc.Delegation, path); err != nil {
		return nil, err
	}
	if err := applyObserve(cfg, &fc, path); err != nil {
		return nil, err
	}
	cfg.Security.BlockPrivateURLs = sec.BlockPrivateURLs
	cfg.Security.HTTPTokenEnv = sec.HTTPTokenEnv
	if err := applySecurityLimits(cfg, sec, path); err != nil {
		return nil, err
	}
	switch sec.Autonomy {
	case "":
	case AutonomyReadOnly, AutonomySupervised, AutonomyFull:
		cfg.Security.Autonomy = sec.Autonomy
	default:
		return nil, invalidf("%s: security.autonomy is %q; use read_only, supervised or full", path, sec.Autonomy)
	}
	switch sec.Pinning {
	case "":
	case PinningStrict, PinningWarn:
		cfg.Security.Pinning = sec.Pinning
	default:
		return nil, invalidf("%s: security.pinning is %q; use strict or warn", path, sec.Pinning)
	}
	for name, s := range fc.Tools.MCPServers {
		if s == nil {
			s = &Server{}
		}
		s.Name = name
		s.Source = path
		if s.Type == "" {
			s.Type = inferType(s.Target)
		}
		s.TimeoutMS = defaultTimeout(s.TimeoutMS)
		cfg.Servers[name] = s
	}
	return cfg, nil
}

// pathErr strips the operation and path from an *fs.PathError, for messages
// that already name the file.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func defaultTimeout(ms int) int {
	if ms == 0 {
		return DefaultTimeoutMS
	}
	return ms
}

// decodeStrict decodes TOML into v, refusing keys v has no field for.
func decodeStrict(data []byte, v any) error {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// decodeErrorIn turns a go-toml error into one line: file:line:col, what is
// wrong, what to do. root is the Go type the whole file decodes into, for
// the keys an unknown key's table accepts.
func decodeErrorIn(root reflect.Type, path string, err error) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := sm.Errors[0]
		row, col := e.Position()
		key := e.Key()
		more := ""
		if n := len(sm.Errors) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more unknown keys)", n)
		}
		return invalidf("%s:%d:%d: unknown key %q%s; remove it or fix its spelling (known keys there: %s)",
			path, row, col, strings.Join(key, "."), more, keysAt(root, key[:max(len(key)-1, 0)]))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeErrRE.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("a TOML %s where %s is expected", m[1], goTypeWord(m[2]))
		}
		if k := de.Key(); len(k) > 0 {
			msg = strings.Join(k, ".") + ": " + msg
		}
		return invalidf("%s:%d:%d: %s; fix the TOML there", path, row, col, msg)
	}
	return invalidf("%s: %v; fix the TOML", path, err)
}

var typeErrRE = regexp.MustCompile(`^cannot decode TOML (\w+) into (?:.* of type )?(\S+)$`)

// goTypeWord describes a Go field type in TOML words.
func goTypeWord(t string) string {
	switch strings.TrimPrefix(t, "*") {
	case "int", "int64":
		return "an integer"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "[]string":
		return "an array of strings"
	case "map[string]string":
		return "a table of strings"
	}
	return "a table"
}

// MCPJSONPaths lists the .mcp.json files Load merges into the config read
// from path, first one winning on a name clash: the one beside weft.toml,
// ./.mcp.json, then ~/.weft/.mcp.json, without duplicates. They may not
// exist; a hot reload can watch them along with path.
func MCPJSONPaths(path string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		if !seen[abs] {
			seen[abs] = true
			out = append(out, p)
		}
	}
	add(filepath.Join(filepath.Dir(path), ".mcp.json"))
	add(".mcp.json")
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, ".weft", ".mcp.json"))
	}
	return out
}

// validate checks every server, collecting warnings; the first error (in
// name order) wins. URL hosts are only looked up (through resolve, nil for
// DNS) when block_private_urls is on, since otherwise a private address is
// only a warning.
func (c *Config) validate(data []byte, resolve func(context.Context, string) ([]net.IP, error)) error {
	opts := ValidateOptions{BlockPrivateURLs: c.Security.BlockPrivateURLs, Resolve: resolve}
	if !opts.BlockPrivateURLs {
		opts.Resolve = func(context.Context, string) ([]net.IP, error) { return nil, nil }
	}
	names := c.Names()
	warns := make([][]string, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { warns[i], errs[i] = c.Servers[name].Validate(opts) })
	}
	wg.Wait()
	var lines map[string]int
	for i, name := range names {
		s := c.Servers[name]
		if err := errs[i]; err != nil {
			where := s.Source
			if s.Source == c.Path {
				if lines == nil {
					lines = serverLines(data)
				}
				if n := lines[name]; n > 0 {
					where = fmt.Sprintf("%s:%d", where, n)
				}
			}
			return fmt.Errorf("%s: %w", where, err)
		}
		c.Warnings = append(c.Warnings, warns[i]...)
	}
	c.Warnings = append(c.Warnings, c.perUserWarnings()...)
	return nil
}

// serverLines maps each server name to the first line of weft.toml that
// defines it.
func serverLines(data []byte) map[string]int {
	out := map[string]int{}
	segs, err := scanSegments(data)
	if err != nil {
		return out
	}
	for _, s := range segs {
		if len(s.path) >= 3 && s.path[0] == "tools" && s.path[1] == "mcp_servers" {
			if _, ok := out[s.path[2]]; !ok {
				out[s.path[2]] = s.line
			}
		}
	}
	return out
}

// sortedServers returns the servers of m ordered by name.
func sortedServers(m map[string]*Server) []*Server {
	out := make([]*Server, 0, len(m))
	for _, s := range m {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
