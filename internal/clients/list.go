package clients

import (
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Status says whether one client's config, in one scope, has weft.
type Status struct {
	Client Client
	Scope  string
	Path   string
	// Missing is set when the file does not exist.
	Missing bool
	// Err is set when the file cannot be read or parsed.
	Err error
	// Servers names the entries that run weft, sorted.
	Servers []string
}

// List reports, for every client and scope, whether its config has weft.
func List(env Env) []Status {
	var out []Status
	for _, c := range known {
		for _, scope := range c.scopes {
			out = append(out, c.status(scope, env))
		}
	}
	return out
}

func (c Client) status(scope string, env Env) Status {
	st := Status{Client: c, Scope: scope, Path: c.Path(scope, env)}
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		st.Missing = true
		return st
	}
	if err != nil {
		st.Err = err
		return st
	}
	st.Servers, st.Err = c.weftServers(data)
	return st
}

// weftServers names the entries of a client file that run weft: named weft,
// or a command whose file name is weft.
func (c Client) weftServers(data []byte) ([]string, error) {
	commands := map[string]string{}
	if c.format == codexTOML {
		var f codexFile
		if err := toml.Unmarshal(data, &f); err != nil {
			return nil, err
		}
		for name, s := range f.MCPServers {
			commands[name] = s.Command
		}
	} else {
		servers, err := jsonServers(data, c.format)
		if err != nil {
			return nil, err
		}
		for name, s := range servers {
			commands[name] = s.Command
		}
	}
	var out []string
	for name, cmd := range commands {
		base := strings.TrimSuffix(strings.ToLower(cmd[strings.LastIndexAny(cmd, `/\`)+1:]), ".exe")
		if name == "weft" || base == "weft" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}
