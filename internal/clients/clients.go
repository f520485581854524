// Package clients writes weft into the MCP configuration of the clients its
// users run (Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex)
// and reports which of them already have it. Each client keeps its servers
// in its own documented file and format; everything else in those files is
// kept as it was.
package clients

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Scopes a client's MCP config can live in.
const (
	ScopeUser    = "user"    // the user's own config, every project
	ScopeProject = "project" // a file in the project, shared through git
)

// ErrUnknownClient reports a client name weft does not know.
var ErrUnknownClient = errors.New("unknown client")

// Entry is the server written into a client's config: a local command
// (Command and Args) or a URL of weft's HTTP face.
type Entry struct {
	Name    string
	Command string
	Args    []string
	URL     string
}

// Env is where the client files live: the home directory, the project
// directory, the operating system (runtime.GOOS) and, on Windows, %APPDATA%.
type Env struct {
	Home    string
	Project string
	GOOS    string
	AppData string
}

// format is how a client's file holds its servers.
type format int

const (
	mcpServers   format = iota // JSON "mcpServers": {NAME: {command, args} or {url}}
	claudeJSON                 // mcpServers with "type" (Claude Code)
	vscodeJSON                 // JSON "servers": {NAME: {type, command, args} or {type, url}}
	windsurfJSON               // mcpServers, remote servers under "serverUrl"
	codexTOML                  // TOML [mcp_servers.NAME]
)

// Client is one MCP client weft knows how to configure.
type Client struct {
	Name   string
	Title  string
	format format
	// scopes lists the scopes it supports, the default first.
	scopes []string
	// http reports whether its config can name a remote server.
	http bool
}

var known = []Client{
	{Name: "claude-code", Title: "Claude Code", format: claudeJSON, scopes: []string{ScopeUser, ScopeProject}, http: true},
	{Name: "claude-desktop", Title: "Claude Desktop", format: mcpServers, scopes: []string{ScopeUser}},
	{Name: "cursor", Title: "Cursor", format: mcpServers, scopes: []string{ScopeUser, ScopeProject}, http: true},
	{Name: "vscode", Title: "VS Code", format: vscodeJSON, scopes: []string{ScopeProject, ScopeUser}, http: true},
	{Name: "windsurf", Title: "Windsurf", format: windsurfJSON, scopes: []string{ScopeUser}, http: true},
	{Name: "codex", Title: "Codex", format: codexTOML, scopes: []string{ScopeUser}, http: true},
}

// All returns every known client, in a stable order.
func All() []Client { return slices.Clone(known) }

// Names lists the known client names.
func Names() []string {
	out := make([]string, len(known))
	for i, c := range known {
		out[i] = c.Name
	}
	return out
}

// Lookup finds a client by name.
func Lookup(name string) (Client, error) {
	for _, c := range known {
		if c.Name == name {
			return c, nil
		}
	}
	return Client{}, fmt.Errorf("%w %q; use one of %s", ErrUnknownClient, name, strings.Join(Names(), ", "))
}

// Scope checks scope against the client; "" means its default.
func (c Client) Scope(scope string) (string, error) {
	if scope == "" {
		return c.scopes[0], nil
	}
	if !slices.Contains(c.scopes, scope) {
		return "", fmt.Errorf("%s has no %s scope; use --scope %s", c.Title, scope, strings.Join(c.scopes, " or "))
	}
	return scope, nil
}

// Path is the file holding the client's MCP servers for scope.
func (c Client) Path(scope string, env Env) string {
	if scope == ScopeProject {
		switch c.Name {
		case "cursor":
			return filepath.Join(env.Project, ".cursor", "mcp.json")
		case "vscode":
			return filepath.Join(env.Project, ".vscode", "mcp.json")
		}
		return filepath.Join(env.Project, ".mcp.json")
	}
	switch c.Name {
	case "claude-code":
		return filepath.Join(env.Home, ".claude.json")
	case "claude-desktop":
		return filepath.Join(appConfigDir(env), "Claude", "claude_desktop_config.json")
	case "cursor":
		return filepath.Join(env.Home, ".cursor", "mcp.json")
	case "vscode":
		return filepath.Join(appConfigDir(env), "Code", "User", "mcp.json")
	case "windsurf":
		return filepath.Join(env.Home, ".codeium", "windsurf", "mcp_config.json")
	}
	return filepath.Join(env.Home, ".codex", "config.toml")
}

// ClaudeDesktopConfig is Claude Desktop's config file on env.GOOS: the file
// `weft mcp import` reads when given none.
func ClaudeDesktopConfig(env Env) string {
	c, _ := Lookup("claude-desktop")
	return c.Path(ScopeUser, env)
}

// appConfigDir is where desktop apps keep per-user settings on each OS:
// ~/Library/Application Support on macOS, %APPDATA% on Windows, ~/.config
// elsewhere (the apps use that path even when XDG_CONFIG_HOME is set).
func appConfigDir(env Env) string {
	switch env.GOOS {
	case "darwin":
		return filepath.Join(env.Home, "Library", "Application Support")
	case "windows":
		if env.AppData != "" {
			return env.AppData
		}
		return filepath.Join(env.Home, "AppData", "Roaming")
	}
	return filepath.Join(env.Home, ".config")
}
