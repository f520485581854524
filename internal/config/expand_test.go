package config

import (
	"errors"
	"strings"
	"testing"
)

// TestResolvedRefusesUnsetVariables: a ${VAR} whose variable is unset is an
// error naming the variable, the entry and the fix; ${VAR:-default} and set
// variables are fine.
func TestResolvedRefusesUnsetVariables(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"SET": "v"}[k] }
	s := &Server{Name: "api",
		Env:     map[string]string{"A": "${SET}", "B": "${MISSING:-fallback}", "C": "x-${GONE}-y"},
		Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Ok": "${SET}"}}
	_, err := s.ResolvedEnv(getenv)
	if !errors.Is(err, ErrUnsetVar) || !strings.Contains(err.Error(), `server "api": env C uses ${GONE}, which is not set`) {
		t.Errorf("env: %v", err)
	}
	_, err = s.ResolvedHeaders(getenv)
	if !errors.Is(err, ErrUnsetVar) || !strings.Contains(err.Error(), "header Authorization uses ${TOKEN}") || !strings.Contains(err.Error(), "${TOKEN:-default}") {
		t.Errorf("headers: %v", err)
	}
	delete(s.Env, "C")
	env, err := s.ResolvedEnv(getenv)
	if err != nil || env["A"] != "v" || env["B"] != "fallback" {
		t.Errorf("ResolvedEnv = %v, %v", env, err)
	}
}
