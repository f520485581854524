package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/oauth"
)

// maxSecretBytes bounds a secret read from stdin.
const maxSecretBytes = 64 << 10

// mcpSecretCommand is `weft mcp secret set|unset|list`: one user's secrets
// for a per-user stdio server, kept in the token store (never weft.toml).
func (a *app) mcpSecretCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Keep a user's secrets for a per-user stdio server (given to that user's instance as environment variables)",
	}
	var user string
	set := &cobra.Command{
		Use:   "set NAME VARIABLE --user USER",
		Short: "Store a secret read from stdin (a running weft uses it for the user's next instance)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.secretManager(args[0])
			if err != nil {
				return err
			}
			value, err := readSecret(cmd.InOrStdin())
			if err != nil {
				return err
			}
			if err := m.SetSecret(args[0], user, args[1], value); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Stored %s for user %s of '%s' in the %s token store\n", args[1], user, args[0], m.Store().Kind())
			return nil
		},
	}
	unset := &cobra.Command{
		Use:   "unset NAME VARIABLE --user USER",
		Short: "Forget one of a user's secrets",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.secretManager(args[0])
			if err != nil {
				return err
			}
			if err := m.UnsetSecret(args[0], user, args[1]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Forgot %s for user %s of '%s'\n", args[1], user, args[0])
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list NAME --user USER",
		Short: "List the names (never the values) of a user's secrets",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.secretManager(args[0])
			if err != nil {
				return err
			}
			names, err := m.SecretNames(args[0], user)
			if err != nil {
				return err
			}
			for _, n := range names {
				fmt.Fprintln(a.stdout, n)
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{set, unset, list} {
		c.Flags().StringVar(&user, "user", "", "the user of weft's face (the user claim of their access token)")
		_ = c.MarkFlagRequired("user")
	}
	cmd.AddCommand(set, unset, list)
	return cmd
}

// secretManager checks that name is a per-user stdio server and opens the
// token store.
func (a *app) secretManager(name string) (*oauth.Manager, error) {
	cfg, s, err := a.configuredServer(name)
	if err != nil {
		return nil, err
	}
	if s.Transport() != config.TransportStdio || !s.PerUser {
		return nil, fmt.Errorf("%s is not a per-user stdio server; secrets apply to stdio servers with per_user = true", name)
	}
	return loginManager(cfg, a.quietLogger(), nil)
}

// readSecret reads the whole of r, without its final line ending.
func readSecret(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxSecretBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the secret from stdin: %w", err)
	}
	if len(b) > maxSecretBytes {
		return "", fmt.Errorf("the secret on stdin is over %d bytes", maxSecretBytes)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", errors.New("no secret on stdin; pipe it in, e.g. `printf %s \"$TOKEN\" | weft mcp secret set NAME VARIABLE --user USER`")
	}
	return v, nil
}
