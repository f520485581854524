package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// mcpJSONServer is one entry of the de-facto standard mcpServers object
// (.mcp.json, Claude Desktop, VS Code). Unknown fields are ignored, since
// each client adds its own.
type mcpJSONServer struct {
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Type     string            `json:"type"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Cwd      string            `json:"cwd"`
	Disabled bool              `json:"disabled"`
	// EnvFile is Cursor's file of variables for a stdio server.
	EnvFile string `json:"envFile"`
}

type mcpJSONFile struct {
	MCPServers map[string]mcpJSONServer `json:"mcpServers"`
	// Servers is VS Code's name for the same object (.vscode/mcp.json).
	Servers map[string]mcpJSONServer `json:"servers"`
}

// readMCPJSON reads the servers of a .mcp.json, sorted by name. A missing
// file yields an error matching fs.ErrNotExist; a file without mcpServers
// yields no servers.
func readMCPJSON(file string) ([]*Server, error) {
	f, err := decodeMCPJSON(file)
	if err != nil {
		return nil, err
	}
	return convertMCPJSON(file, f.MCPServers)
}

func decodeMCPJSON(file string) (*mcpJSONFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot read %s: %v; check the path and its permissions", file, pathErr(err))
	}
	var f mcpJSONFile
	if len(bytes.TrimSpace(data)) == 0 {
		return &f, nil
	}
	if err := json.Unmarshal(data, &f); err != nil {
		where := file
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			where = fmt.Sprintf("%s:%d", file, lineAt(data, se.Offset))
		case errors.As(err, &te):
			where = fmt.Sprintf("%s:%d", file, lineAt(data, te.Offset))
		}
		return nil, invalidf("%s: not a valid MCP server list (%v); fix the JSON", where, err)
	}
	return &f, nil
}

func lineAt(data []byte, offset int64) int {
	offset = min(max(offset, 0), int64(len(data)))
	return bytes.Count(data[:offset], []byte("\n")) + 1
}

// convertMCPJSON turns mcpServers entries into Servers, sorted by name.
func convertMCPJSON(file string, entries map[string]mcpJSONServer) ([]*Server, error) {
	out := map[string]*Server{}
	for name, e := range entries {
		s, err := fromMCPJSON(name, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		s.Source = file
		out[name] = s
	}
	return sortedServers(out), nil
}

// fromMCPJSON maps one mcpServers entry onto a Server.
func fromMCPJSON(name string, e mcpJSONServer) (*Server, error) {
	if e.EnvFile != "" {
		return nil, invalidf("server %q: envFile %q is not read by weft, so the server would start without those variables; "+
			"list them under env instead (as ${VAR} references to keep secrets out of the file) and remove envFile", name, e.EnvFile)
	}
	s := &Server{Name: name, Args: e.Args, Env: cursorVars(e.Env), Headers: cursorVars(e.Headers), Cwd: e.Cwd}
	if e.Disabled {
		off := false
		s.Enabled = &off
	}
	typ := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(e.Type, "-", ""), "_", ""))
	switch typ {
	case "stdio":
		s.Type = TransportStdio
	case "http", "streamablehttp":
		s.Type = TransportHTTP
	case "sse":
		s.Type = TransportSSE
	case "":
		if e.URL != "" && e.Command == "" {
			s.Type = TransportHTTP
			if strings.HasSuffix(strings.TrimRight(urlPath(e.URL), "/"), "/sse") {
				s.Type = TransportSSE // the SSE endpoint's conventional path
			}
		}
	default:
		return nil, invalidf("server %q: type %q is unknown; use stdio, http, streamable-http or sse", name, e.Type)
	}
	switch {
	case e.Command != "" && e.URL != "":
		return nil, invalidf("server %q: both command and url are set; keep command for a local server or url for a remote one", name)
	case s.Type == TransportHTTP || s.Type == TransportSSE:
		if e.URL == "" {
			return nil, invalidf("server %q: type %q needs a url; set url", name, e.Type)
		}
		s.Target = e.URL
	case e.URL != "":
		return nil, invalidf("server %q: type stdio needs a command, not a url; set command or change type", name)
	default:
		s.Target = e.Command
		if s.Type == "" {
			s.Type = inferType(e.Command)
		}
	}
	return s, nil
}

// cursorVars rewrites Cursor's ${env:VAR} references to weft's ${VAR}.
func cursorVars(m map[string]string) map[string]string {
	for k, v := range m {
		if strings.Contains(v, "${env:") {
			m[k] = strings.ReplaceAll(v, "${env:", "${")
		}
	}
	return m
}

// urlPath is the path of a URL, "" when it does not parse.
func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// Import reads a .mcp.json, a Claude Desktop config
// (claude_desktop_config.json) or a VS Code mcp.json and returns its servers,
// sorted by name, validated and with Source set to file. It is the reading
// half of `weft mcp import`; AddServer or Render does the writing.
func Import(file string) ([]*Server, error) {
	f, err := decodeMCPJSON(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("cannot import %s: no such file; check the path", file)
		}
		return nil, err
	}
	entries := f.MCPServers
	if entries == nil {
		entries = f.Servers
	}
	if entries == nil {
		return nil, invalidf("%s has no \"mcpServers\" object; give a .mcp.json or a Claude Desktop config", file)
	}
	servers, err := convertMCPJSON(file, entries)
	if err != nil {
		return nil, err
	}
	noLookup := func(context.Context, string) ([]net.IP, error) { return nil, nil }
	for _, s := range servers {
		if _, err := s.Validate(ValidateOptions{Resolve: noLookup}); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	return servers, nil
}

// serverTOML is the layout AddServer and Render write: the common fields
// first, env and headers as inline tables.
type serverTOML struct {
	Target          string            `toml:"target"`
	Type            string            `toml:"type,omitempty"`
	Args            []string          `toml:"args,omitempty"`
	Env             map[string]string `toml:"env,inline,omitempty"`
	Cwd             string            `toml:"cwd,omitempty"`
	Headers         map[string]string `toml:"headers,inline,omitempty"`
	TimeoutMS       int               `toml:"timeout_ms,omitempty"`
	Enabled         *bool             `toml:"enabled,omitempty"`
	Prefix          *string           `toml:"prefix,omitempty"`
	AllowedTools    []string          `toml:"allowed_tools,omitempty"`
	DeniedTools     []string          `toml:"denied_tools,omitempty"`
	ProtocolVersion string            `toml:"protocol_version,omitempty"`
	InheritEnv      bool              `toml:"inherit_env,omitempty"`
	OAuth           *OAuth            `toml:"oauth,inline,omitempty"`
}

// renderServer returns the [tools.mcp_servers.NAME] table for s. Values that
// equal what weft would infer or default to are left out.
func renderServer(s *Server) (string, error) {
	st := serverTOML{
		Target: s.Target, Args: s.Args, Env: s.Env, Cwd: s.Cwd, Headers: s.Headers,
		TimeoutMS: s.TimeoutMS, Enabled: s.Enabled, Prefix: s.Prefix, AllowedTools: s.AllowedTools,
		DeniedTools: s.DeniedTools, ProtocolVersion: s.ProtocolVersion, InheritEnv: s.InheritEnv,
		OAuth: s.OAuth,
	}
	if s.Type != inferType(s.Target) {
		st.Type = s.Type
	}
	if st.TimeoutMS == DefaultTimeoutMS {
		st.TimeoutMS = 0
	}
	body, err := toml.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("server %q: cannot write it as TOML: %v", s.Name, err)
	}
	return "[tools.mcp_servers." + tomlKey(s.Name) + "]\n" + string(body), nil
}

// Render returns weft.toml text holding a [tools.mcp_servers.NAME] table for
// each server, in the order given, separated by blank lines.
func Render(servers []*Server) string {
	var b strings.Builder
	for i, s := range servers {
		if i > 0 {
			b.WriteString("\n")
		}
		t, err := renderServer(s)
		if err != nil {
			fmt.Fprintf(&b, "# %v\n", err)
			continue
		}
		b.WriteString(t)
	}
	return b.String()
}

// tomlKey writes name as a TOML key: bare when it can be, else quoted.
func tomlKey(name string) string {
	if name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range name {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
