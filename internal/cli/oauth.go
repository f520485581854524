package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/oauth"
)

// printNeedsLogin names, below a listing, each server waiting for a login
// and the command that fixes it (the table's error column may cut it).
func printNeedsLogin(w io.Writer, servers []hub.ServerStatus) {
	for _, s := range servers {
		if s.Status == hub.StatusNeedsLogin {
			fmt.Fprintf(w, "needs login: %s; run `weft mcp login %s`\n", s.Name, s.Name)
		}
	}
}

// loginFlags are the mcp add and mcp login flags of the interactive login.
type loginFlags struct {
	noBrowser bool
	oauth     config.OAuth
	user      string // mcp login --user: a per-user server's login for that user
}

func (f *loginFlags) register(cmd *cobra.Command, withConfig bool) {
	cmd.Flags().BoolVar(&f.noBrowser, "no-browser", false, "print the login URL without opening a browser")
	if !withConfig {
		return
	}
	cmd.Flags().StringVar(&f.oauth.ClientID, "client-id", "", "OAuth client registered for weft beforehand (default: register one dynamically)")
	cmd.Flags().StringVar(&f.oauth.ClientSecretEnv, "client-secret-env", "", "environment variable holding that client's secret")
	cmd.Flags().StringSliceVar(&f.oauth.Scopes, "scope", nil, "OAuth scope to request instead of the server's (repeatable)")
	cmd.Flags().IntVar(&f.oauth.RedirectPort, "redirect-port", 0, "loopback port of the login callback (default: any free port)")
	cmd.Flags().StringVar(&f.oauth.Grant, "grant", "", "authorization_code (default) or client_credentials")
}

// table returns the oauth table the flags describe, or nil for none.
func (f *loginFlags) table() *config.OAuth {
	o := f.oauth
	if o.ClientID == "" && o.ClientSecretEnv == "" && len(o.Scopes) == 0 && o.RedirectPort == 0 && o.Grant == "" {
		return nil
	}
	return &o
}

// loginManager returns the OAuth manager over the configured token store;
// login nil makes it non-interactive.
func loginManager(cfg *config.Config, logger *slog.Logger, login *oauth.Login) (*oauth.Manager, error) {
	return oauth.OpenManager(cfg.Security.TokenStore, logger, login)
}

// loginIfAsked logs in to a remote server that asks for it, before mcp add
// records it, so that weft (this command, or the running weft it asks)
// connects with a working token. A server already logged in, or one that
// does not ask, is left alone.
func (a *app) loginIfAsked(ctx context.Context, cfg *config.Config, s *config.Server, f *loginFlags) error {
	if s.Transport() == config.TransportStdio {
		return nil
	}
	m, err := loginManager(cfg, a.quietLogger(), nil)
	if err != nil {
		return err
	}
	if rec, err := m.Store().Load(s.Name); err == nil && rec != nil {
		return nil
	}
	err = a.interactiveLogin(ctx, cfg, s, f)
	if errors.Is(err, oauth.ErrNotProtected) {
		return nil
	}
	return err
}

// interactiveLogin runs a server's login in this terminal: the URL on
// stderr (stdout stays for results), a browser unless --no-browser, and a
// countdown.
func (a *app) interactiveLogin(ctx context.Context, cfg *config.Config, s *config.Server, f *loginFlags) error {
	lb := &oauth.Loopback{Out: a.stderr, NoBrowser: f.noBrowser}
	m, err := loginManager(cfg, a.quietLogger(), lb.Login())
	if err != nil {
		return err
	}
	if m, err = asUser(m, s, f.user); err != nil {
		return err
	}
	return m.Login(ctx, s)
}

// asUser returns m acting for user on a per-user server ("": the server's
// own login, which lists its tools).
func asUser(m *oauth.Manager, s *config.Server, user string) (*oauth.Manager, error) {
	if user == "" {
		return m, nil
	}
	if s.OAuth == nil || !s.OAuth.PerUser {
		return nil, fmt.Errorf("%s keeps one login for everybody; --user applies to servers with per_user = true in their oauth table", s.Name)
	}
	return m.AsUser(user), nil
}

func (a *app) mcpLoginCommand() *cobra.Command {
	var f loginFlags
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to a remote server that uses OAuth (a running weft picks the new token up)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, s, err := a.configuredServer(args[0])
			if err != nil {
				return err
			}
			err = a.interactiveLogin(cmd.Context(), cfg, s, &f)
			if errors.Is(err, oauth.ErrNotProtected) {
				fmt.Fprintf(a.stdout, "%s does not ask for a login; nothing to do\n", s.Name)
				return nil
			}
			if err != nil {
				return err
			}
			if f.user != "" {
				fmt.Fprintf(a.stdout, "Logged in to '%s' as user %s\n", s.Name, f.user)
				return nil
			}
			fmt.Fprintf(a.stdout, "Logged in to '%s'\n", s.Name)
			return nil
		},
	}
	f.register(cmd, false)
	cmd.Flags().StringVar(&f.user, "user", "", "log in for this user of weft's face (a server with oauth per_user = true)")
	return cmd
}

func (a *app) mcpLogoutCommand() *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the OAuth login of a server (a running weft stops using it within seconds)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			s := cfg.Servers[args[0]]
			if s == nil {
				s = &config.Server{Name: args[0]} // removed from weft.toml: still forget its login
			}
			m, err := loginManager(cfg, a.quietLogger(), nil)
			if err != nil {
				return err
			}
			if m, err = asUser(m, s, user); err != nil {
				return err
			}
			had, revoked, err := m.Logout(cmd.Context(), s)
			if err != nil {
				return err
			}
			switch {
			case !had:
				fmt.Fprintf(a.stdout, "No stored login for '%s'\n", args[0])
			case revoked:
				fmt.Fprintf(a.stdout, "Logged out of '%s' (its refresh token is revoked)\n", args[0])
			default:
				fmt.Fprintf(a.stdout, "Logged out of '%s'\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "forget this user's login (a server with oauth per_user = true)")
	return cmd
}

// configuredServer returns the config and the named server entry.
func (a *app) configuredServer(name string) (*config.Config, *config.Server, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, nil, err
	}
	s, ok := cfg.Servers[name]
	if !ok {
		return nil, nil, fmt.Errorf("no server named %q in %s; see `weft mcp list`", name, cfg.Path)
	}
	return cfg, s, nil
}
