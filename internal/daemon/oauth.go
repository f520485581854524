package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/oauth"
	"golang.org/x/sync/singleflight"
)

// upstreamLogins gives a hub the OAuth handler of each remote server and
// the token store's change stamp. Without a usable store, remote servers
// get no OAuth (static headers only) and the reason is logged.
func upstreamLogins(cfg *config.Config, logger *slog.Logger) (func(*config.Server) auth.OAuthHandler, func() string) {
	m, err := oauth.OpenManager(cfg.Security.TokenStore, logger, nil)
	if err != nil {
		logger.Warn("OAuth logins disabled: "+err.Error(), "fix", "set [security] token_store or WEFT_TOKEN_STORE")
		return nil, nil
	}
	return m.Handler, m.Store().Stamp
}

// loginUser is whose login a call of s needs: the caller's own on a
// per-user server, else the server's one login ("") that concurrent
// callers, whoever they are, share.
func loginUser(s *config.Server, user string) string {
	if !s.IsPerUser() {
		return ""
	}
	return user
}

// loginThroughClient logs weft in to a server through the client whose
// call needs it: the client opens the authorization page (URL-mode
// elicitation) and the redirect comes back to weft's loopback callback.
// Concurrent calls to the same server share one login.
func (d *Daemon) loginThroughClient() gateway.LoginFunc {
	var logins singleflight.Group
	return func(ctx context.Context, server string, open func(context.Context, string) error) error {
		cfg := d.Config()
		s, ok := cfg.Servers[server]
		if !ok {
			return fmt.Errorf("no server named %q", server)
		}
		user := loginUser(s, userFrom(ctx))
		_, err, _ := logins.Do(server+"\x00"+user, func() (any, error) {
			lb := &oauth.Loopback{Out: io.Discard, MustOpen: true, Open: func(u string) error { return open(ctx, u) }}
			m, err := oauth.OpenManager(cfg.Security.TokenStore, d.logger, lb.Login())
			if err != nil {
				return nil, err
			}
			if user != "" {
				m = m.AsUser(user) // a per-user server: the caller's own login
			}
			return nil, m.Login(ctx, s)
		})
		return err
	}
}
