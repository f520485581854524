package clients

import (
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// codexServer is one [mcp_servers.NAME] table of ~/.codex/config.toml.
type codexServer struct {
	Command string   `toml:"command,omitempty"`
	Args    []string `toml:"args,omitempty"`
	URL     string   `toml:"url,omitempty"`
}

type codexFile struct {
	MCPServers map[string]codexServer `toml:"mcp_servers"`
}

// codexTable renders e as a [mcp_servers.NAME] table.
func codexTable(e Entry) (string, error) {
	s := codexServer{Command: e.Command, Args: e.Args}
	if e.URL != "" {
		s = codexServer{URL: e.URL}
	}
	body, err := toml.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("cannot write the entry as TOML: %w", err)
	}
	return "[mcp_servers." + e.Name + "]\n" + string(body), nil
}

// setCodexServer replaces (or appends) the [mcp_servers.NAME] table of a
// Codex config, keeping every other line as written.
func setCodexServer(data []byte, e Entry) ([]byte, error) {
	if err := toml.Unmarshal(data, &map[string]any{}); err != nil {
		return nil, fmt.Errorf("not valid TOML (%v)", err)
	}
	table, err := codexTable(e)
	if err != nil {
		return nil, err
	}
	var kept []string
	skipping := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if key, ok := tableHeader(line); ok {
			skipping = key == "mcp_servers."+e.Name || strings.HasPrefix(key, "mcp_servers."+e.Name+".")
		}
		if !skipping {
			kept = append(kept, line)
		}
	}
	text := strings.TrimRight(strings.Join(kept, ""), "\n")
	if text != "" {
		text += "\n\n"
	}
	out := []byte(text + table)
	var f codexFile
	if err := toml.Unmarshal(out, &f); err != nil {
		return nil, fmt.Errorf("the edit would not be valid TOML (%v); is mcp_servers.%s also set another way?", err, e.Name)
	}
	if _, ok := f.MCPServers[e.Name]; !ok {
		return nil, fmt.Errorf("the edit did not land under mcp_servers.%s", e.Name)
	}
	return out, nil
}

// tableHeader returns the dotted key of a [table] or [[array]] header line,
// without quotes or spaces.
func tableHeader(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "#"); i >= 0 && !strings.Contains(t[:i], `"`) {
		t = strings.TrimSpace(t[:i])
	}
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return "", false
	}
	t = strings.Trim(t, "[]")
	t = strings.NewReplacer(`"`, "", "'", "", " ", "", "\t", "").Replace(t)
	return t, true
}
