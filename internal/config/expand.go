package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrUnsetVar is wrapped by the error of a ${VAR} reference to a variable
// that is not set, so callers can tell it from a connection failure.
var ErrUnsetVar = errors.New("variable not set")

// ResolvedEnv is ExpandedEnv that refuses a ${VAR} (without a :-default)
// whose variable is unset or empty, instead of passing "" to the server.
func (s *Server) ResolvedEnv(getenv func(string) string) (map[string]string, error) {
	if err := s.checkRefs("env", s.Env, getenv); err != nil {
		return nil, err
	}
	return s.ExpandedEnv(getenv), nil
}

// ResolvedHeaders is ExpandedHeaders with the same check as ResolvedEnv.
func (s *Server) ResolvedHeaders(getenv func(string) string) (map[string]string, error) {
	if err := s.checkRefs("header", s.Headers, getenv); err != nil {
		return nil, err
	}
	return s.ExpandedHeaders(getenv), nil
}

// checkRefs names the first (by key) value of m that refers to an unset
// variable.
func (s *Server) checkRefs(what string, m map[string]string, getenv func(string) string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if name := unsetRef(m[k], getenv); name != "" {
			return fmt.Errorf("server %q: %s %s uses ${%s}, which is not set; set %s in weft's environment, "+
				"or write ${%s:-default} for a fallback: %w", s.Name, what, k, name, name, name, ErrUnsetVar)
		}
	}
	return nil
}

// unsetRef returns the first variable v refers to as ${VAR} that getenv
// does not give a value, "" when there is none.
func unsetRef(v string, getenv func(string) string) string {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return ""
		}
		j := strings.IndexByte(v[i+2:], '}')
		if j < 0 {
			return ""
		}
		name, _, hasDef := strings.Cut(v[i+2:i+2+j], ":-")
		if !hasDef && name != "" && (getenv == nil || getenv(name) == "") {
			return name
		}
		v = v[i+3+j:]
	}
}
