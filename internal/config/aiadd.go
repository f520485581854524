package config

import "strings"

// aiDeniedEnv are environment variables that make an ordinary program run
// code of the setter's choosing; an AI may not set them.
var aiDeniedEnv = []string{
	"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "NODE_OPTIONS", "NODE_PATH",
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "GIT_SSH_COMMAND", "PATH",
}

// ValidateFromAI applies Validate with the stricter rules for a server an AI
// asks to add through mcp_manage: no inline code for a shell or
// interpreter, no ${VAR} references (they would hand weft's own secrets to
// the new server), no variables that inject code (LD_PRELOAD, NODE_OPTIONS,
// …), and no inherit_env.
func (s *Server) ValidateFromAI(blockPrivate bool) ([]string, error) {
	for k, v := range s.Env {
		if strings.Contains(v, "${") {
			return nil, invalidf("server %q: env %s refers to a variable of weft's environment, which a server added by an AI may not do; ask the user to add it", s.Name, k)
		}
		up := strings.ToUpper(k)
		for _, d := range aiDeniedEnv {
			if up == d || strings.HasPrefix(up, "DYLD_") {
				return nil, invalidf("server %q: env %s can make a program run other code, which a server added by an AI may not set; ask the user to add it", s.Name, k)
			}
		}
	}
	for k, v := range s.Headers {
		if strings.Contains(v, "${") {
			return nil, invalidf("server %q: header %s refers to a variable of weft's environment, which a server added by an AI may not do; ask the user to add it", s.Name, k)
		}
	}
	if s.InheritEnv {
		return nil, invalidf("server %q: inherit_env would give it all of weft's environment, which a server added by an AI may not have; ask the user to add it", s.Name)
	}
	return s.Validate(ValidateOptions{BlockPrivateURLs: blockPrivate, FromAI: true})
}
