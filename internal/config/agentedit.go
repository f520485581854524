package config

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// AddAgentServerTo returns data with s added to agent's own servers: an
// [agents.AGENT.mcp_servers.NAME] table when data is weft.toml (inFile
// false), or an [mcp_servers.NAME] table when data is the agent's own file.
// The error wraps ErrServerExists when the agent already has that name.
func AddAgentServerTo(data []byte, file, agent string, s *Server, inFile bool) ([]byte, error) {
	if s == nil {
		return nil, errors.New("no server to add")
	}
	noLookup := func(context.Context, string) ([]net.IP, error) { return nil, nil }
	if _, err := s.Validate(ValidateOptions{Resolve: noLookup}); err != nil {
		return nil, err
	}
	own, err := agentOwn(data, file, agent, inFile)
	if err != nil {
		return nil, err
	}
	if own[s.Name] != nil {
		return nil, fmt.Errorf("server %q %w for agent %s in %s; remove it first or choose another name", s.Name, ErrServerExists, agent, file)
	}
	text, err := renderServer(s)
	if err != nil {
		return nil, err
	}
	header := "[agents." + tomlKey(agent) + ".mcp_servers." + tomlKey(s.Name) + "]"
	if inFile {
		header = "[mcp_servers." + tomlKey(s.Name) + "]"
	}
	_, body, _ := strings.Cut(text, "\n") // renderServer's own header goes
	out := appendTable(data, header+"\n"+body)
	if own, err = agentOwn(out, file, agent, inFile); err != nil || own[s.Name] == nil || own[s.Name].Target != s.Target {
		return nil, fmt.Errorf("cannot add server %q to agent %s in %s: the file's layout does not allow appending a %s table (%v); add it by hand", s.Name, agent, file, header, err)
	}
	return out, nil
}

// agentOwn decodes the agent's own server entries from weft.toml or its
// file.
func agentOwn(data []byte, file, agent string, inFile bool) (map[string]*Server, error) {
	if inFile {
		af, err := decodeAgentFile(file, data)
		if err != nil {
			return nil, err
		}
		return af.MCPServers, nil
	}
	if err := parsesForEdit(data, file); err != nil {
		return nil, err
	}
	cfg, err := parse(data, file)
	if err != nil {
		return nil, err
	}
	if af := cfg.agentTables[agent]; af != nil {
		return af.MCPServers, nil
	}
	return nil, nil
}
