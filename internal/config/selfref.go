package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// self describes the running weft, for spotting entries that would make it
// launch or call itself (a client such as Claude Code writes `weft
// mcp-server` into the .mcp.json beside weft.toml; reading that entry back
// would start a copy of weft inside weft).
type self struct {
	exe    string // os.Executable of this process, "" when unknown
	cwd    string // working directory a stdio child inherits
	home   string // home directory, for the default config path
	listen string // [gateway] listen of this config
}

func currentSelf(listen string) self {
	s := self{listen: listen}
	s.exe, _ = os.Executable()
	s.cwd, _ = os.Getwd()
	s.home, _ = os.UserHomeDir()
	return s
}

// dropSelf removes every server that would start this weft on this config
// or point at its own HTTP listener, with one warning naming the file and
// entry.
func (c *Config) dropSelf(me self) {
	for _, name := range c.Names() {
		s := c.Servers[name]
		why := ""
		switch s.Transport() {
		case TransportStdio:
			if me.launches(s, c.Path) {
				why = "starts this weft (" + filepath.Base(s.Target) + " mcp-server on the same config)"
			}
		default:
			if me.listensOn(s.Target) {
				why = "points at this weft's own listener " + s.Target
			}
		}
		if why == "" {
			continue
		}
		delete(c.Servers, name)
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: server %q %s; skipped it, since weft would wait on itself "+
			"(remove the entry, or set read_mcp_json = false under [gateway] to stop reading .mcp.json files)", s.Source, name, why))
	}
}

// launches reports whether the stdio entry s runs this executable as
// `mcp-server` on the config at path.
func (me self) launches(s *Server, path string) bool {
	if me.exe == "" {
		return false
	}
	sub, cfgArg := weftCommand(s.Args)
	if sub != "mcp-server" {
		return false
	}
	dir := me.cwd
	if s.Cwd != "" {
		dir = absIn(me.cwd, s.Cwd)
	}
	target := s.Target
	if strings.ContainsAny(target, `/\`) {
		target = absIn(dir, target)
	} else if p, err := exec.LookPath(target); err == nil {
		target = p
	} else {
		return false
	}
	if !sameFile(target, me.exe) {
		return false
	}
	return sameFile(me.childConfig(dir, cfgArg, s.Env), path)
}

// childConfig is the weft.toml a `weft mcp-server` child started in dir
// would read, by the rule of ResolvePath.
func (me self) childConfig(dir, cfgArg string, env map[string]string) string {
	if cfgArg == "" {
		cfgArg = Expand(env["WEFT_CONFIG"], nil)
	}
	if cfgArg != "" {
		return absIn(dir, cfgArg)
	}
	if st, err := os.Stat(filepath.Join(dir, "weft.toml")); err == nil && !st.IsDir() {
		return filepath.Join(dir, "weft.toml")
	}
	return filepath.Join(me.home, ".weft", "weft.toml")
}

// weftCommand finds the subcommand and the --config value in weft's
// arguments: global flags may come before or after the subcommand.
func weftCommand(args []string) (sub, cfg string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--config" || a == "--log-level":
			if i+1 < len(args) {
				if a == "--config" {
					cfg = args[i+1]
				}
				i++
			}
		case strings.HasPrefix(a, "--config="):
			cfg = strings.TrimPrefix(a, "--config=")
		case strings.HasPrefix(a, "-"):
		case sub == "":
			sub = a
		}
	}
	return sub, cfg
}

// listensOn reports whether target is a URL on this weft's own listener: the
// same port on a loopback host, when weft listens on loopback or on every
// address.
func (me self) listensOn(target string) bool {
	u, err := url.Parse(target)
	if err != nil || u.Port() == "" {
		return false
	}
	lhost, lport, err := net.SplitHostPort(me.listen)
	if err != nil || lport != u.Port() || lport == "0" {
		return false
	}
	local := func(h string) bool {
		if strings.EqualFold(h, "localhost") {
			return true
		}
		ip := net.ParseIP(h)
		return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
	}
	if lhost != "" && !local(lhost) {
		return strings.EqualFold(u.Hostname(), lhost)
	}
	return local(u.Hostname())
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// sameFile reports whether a and b name the same file, following links;
// paths that do not exist compare by their cleaned absolute form.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	aa, _ := filepath.Abs(a)
	bb, _ := filepath.Abs(b)
	return aa == bb
}
