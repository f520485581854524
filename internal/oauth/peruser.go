package oauth

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/weft-dev/weft/internal/config"
)

// ErrNoUser reports a per-user operation without a user.
var ErrNoUser = errors.New("no user given")

// UserKey is the token store's key of one user's record for a server. A
// server name never holds '@' (config.ValidName), so no user can reach
// another server's records, nor the shared record under the bare name; and
// an agent's own instance is named SERVER@AGENT (config.InstanceName) with
// an agent name that never holds ':', so no user can reach an agent's
// record either.
func UserKey(server, user string) string { return server + "@user:" + user }

// AsUser returns a manager whose logins of per-user servers (oauth.per_user)
// are the user's own: stored under UserKey, reported as that user's. Other
// servers are unaffected.
func (m *Manager) AsUser(user string) *Manager {
	c := *m
	c.user = user
	return &c
}

// keyFor is the store key of cfg's login for the manager's user.
func (m *Manager) keyFor(cfg *config.Server) string {
	if u := m.userFor(cfg); u != "" {
		return UserKey(cfg.Name, u)
	}
	return cfg.Name
}

// userFor is the manager's user when cfg keeps one login per user.
func (m *Manager) userFor(cfg *config.Server) string {
	if cfg.OAuth != nil && cfg.OAuth.PerUser {
		return m.user
	}
	return ""
}

// SetSecret stores one secret of user's for a per-user stdio server; its
// instance for that user gets it as the environment variable name.
func (m *Manager) SetSecret(server, user, name, value string) error {
	if err := validUser(user); err != nil {
		return err
	}
	if !config.ValidEnvName(name) {
		return fmt.Errorf("%q is not an environment variable name; use letters, digits and _", name)
	}
	return m.editSecrets(server, user, func(env map[string]string) { env[name] = value })
}

// UnsetSecret forgets one secret of user's for a server.
func (m *Manager) UnsetSecret(server, user, name string) error {
	if err := validUser(user); err != nil {
		return err
	}
	return m.editSecrets(server, user, func(env map[string]string) { delete(env, name) })
}

func (m *Manager) editSecrets(server, user string, edit func(map[string]string)) error {
	key := UserKey(server, user)
	rec, err := m.store.Load(key)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &Record{Server: key}
	}
	next := *rec
	next.Env = maps.Clone(rec.Env)
	if next.Env == nil {
		next.Env = map[string]string{}
	}
	edit(next.Env)
	if len(next.Env) == 0 && next.AccessToken == "" {
		return m.store.Delete(key)
	}
	return m.store.Save(&next)
}

// Secrets returns user's stored secrets for a server (nil when none).
func (m *Manager) Secrets(server, user string) (map[string]string, error) {
	if err := validUser(user); err != nil {
		return nil, err
	}
	rec, err := m.store.Load(UserKey(server, user))
	if err != nil || rec == nil {
		return nil, err
	}
	return maps.Clone(rec.Env), nil
}

// SecretNames lists the names (never the values) of user's secrets for a
// server, sorted.
func (m *Manager) SecretNames(server, user string) ([]string, error) {
	env, err := m.Secrets(server, user)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	return names, nil
}

// validUser refuses user ids that cannot be told apart in messages.
func validUser(user string) error {
	if user == "" {
		return ErrNoUser
	}
	if strings.ContainsAny(user, "\x00\r\n") {
		return fmt.Errorf("user %q holds a NUL, CR or LF; give the user as the access token's user claim names it", user)
	}
	return nil
}
