package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "Manage the MCP servers weft connects to"}
	cmd.PersistentFlags().BoolVar(&a.jsonOut, "json", false, "machine-readable JSON output")
	cmd.AddCommand(a.mcpAddCommand(), a.mcpListCommand(), a.mcpGetCommand(), a.mcpRemoveCommand(), a.mcpImportCommand(), a.mcpApproveCommand())
	cmd.AddCommand(a.mcpEnableCommands()...)
	cmd.AddCommand(a.mcpLoginCommand(), a.mcpLogoutCommand(), a.mcpSecretCommand())
	return cmd
}

func (a *app) mcpAddCommand() *cobra.Command {
	var envs, headers []string
	var typ, prefix string
	var timeoutMS int
	var noVerify bool
	var login loginFlags
	cmd := &cobra.Command{
		Use:   "add NAME TARGET [-- ARGS...]",
		Short: "Add a server: connect to it, then record it in weft.toml",
		Example: "  weft mcp add everything npx -- -y @modelcontextprotocol/server-everything\n" +
			"  weft mcp add remote https://example.com/mcp --header 'Authorization:Bearer ${TOKEN}'",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := &config.Server{Name: args[0], Target: args[1], Args: args[2:], Type: typ, TimeoutMS: timeoutMS}
			if cmd.Flags().Changed("prefix") {
				s.Prefix = &prefix
			}
			var err error
			if s.Env, err = parsePairs(envs, "=", "--env"); err != nil {
				return err
			}
			if s.Headers, err = parsePairs(headers, ":", "--header"); err != nil {
				return err
			}
			s.OAuth = login.table()
			return a.mcpAdd(cmd.Context(), s, noVerify, &login)
		},
	}
	login.register(cmd, true)
	cmd.Flags().StringArrayVar(&envs, "env", nil, "environment variable K=V for a stdio server (repeatable; ${VAR} is expanded at connect time)")
	cmd.Flags().StringArrayVar(&headers, "header", nil, "HTTP header K:V for a remote server (repeatable)")
	cmd.Flags().StringVar(&typ, "type", "", "transport: stdio, http or sse (default: http for http(s):// targets, else stdio)")
	cmd.Flags().StringVar(&prefix, "prefix", "", "namespace for its tools instead of NAME (\"\" for none)")
	cmd.Flags().IntVar(&timeoutMS, "timeout-ms", 0, "per-request timeout in ms (default 30000)")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "record the server without connecting to it first")
	return cmd
}

func parsePairs(items []string, sep, flag string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, sep)
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: expected KEY%sVALUE", flag, it, sep)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

func (a *app) mcpAdd(ctx context.Context, s *config.Server, noVerify bool, login *loginFlags) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	if _, exists := cfg.Servers[s.Name]; exists {
		return fmt.Errorf("a server named %q already exists in %s; remove it first or choose another name", s.Name, cfg.Path)
	}
	s.Source = cfg.Path
	if err := normalise(s); err != nil {
		return err
	}
	warnings, err := s.Validate(config.ValidateOptions{BlockPrivateURLs: cfg.Security.BlockPrivateURLs})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		a.logger.Warn(w)
	}
	if !noVerify {
		if err := a.loginIfAsked(ctx, cfg, s, login); err != nil {
			return fmt.Errorf("could not add %s: %w (nothing was written)", s.Name, err)
		}
	}
	tools := -1
	var line *connectingLine
	if !noVerify {
		line = startConnecting(a.stderr, s.Name, s.Target)
	}
	live, err := a.onLive(cfg, func(c adminClient) error {
		var res gateway.ChangeResult
		err := c.do(ctx, http.MethodPost, gateway.AdminServersPath, specOf(s, noVerify), &res)
		if err == nil && !noVerify {
			tools = res.Status.Tools
		}
		return err
	})
	if !live {
		tools, err = a.addToFile(ctx, cfg, s, noVerify)
	}
	if line != nil {
		line.stop()
	}
	if err != nil {
		return fmt.Errorf("could not add %s: %w (use --no-verify to record it anyway)", s.Name, err)
	}
	if tools >= 0 {
		fmt.Fprintf(a.stdout, "Added MCP server '%s' with %d tools to %s\n", s.Name, tools, cfg.Path)
	} else {
		fmt.Fprintf(a.stdout, "Added MCP server '%s' to %s (not verified)\n", s.Name, cfg.Path)
	}
	return nil
}

// addToFile is mcp add with no weft running: connect once with a throwaway
// hub (outside the file lock: npx may take a while), then record the server
// under the lock, so concurrent adds never lose one another.
func (a *app) addToFile(ctx context.Context, cfg *config.Config, s *config.Server, noVerify bool) (int, error) {
	tools := -1
	if !noVerify {
		var err error
		if tools, err = a.probe(ctx, cfg, s); err != nil {
			return 0, fmt.Errorf("%w; nothing was written", err)
		}
	}
	_, err := config.Change(ctx, cfg.Path, config.Txn{Edit: func(data []byte) ([]byte, error) {
		return config.AddServerTo(data, cfg.Path, s)
	}})
	return tools, err
}

// specOf is s as the admin API takes it.
func specOf(s *config.Server, noVerify bool) gateway.ServerSpec {
	return gateway.ServerSpec{Name: s.Name, Target: s.Target, Args: s.Args, Env: s.Env, Headers: s.Headers, Type: s.Type,
		Prefix: s.Prefix, TimeoutMS: s.TimeoutMS, OAuth: s.OAuth, NoVerify: noVerify}
}

// normalise fills in the transport from the target, as loading would.
func normalise(s *config.Server) error {
	if s.Type == "" {
		s.Type = config.TransportStdio
		if strings.HasPrefix(s.Target, "http://") || strings.HasPrefix(s.Target, "https://") {
			s.Type = config.TransportHTTP
		}
	}
	return nil
}

// probe connects to s once and returns how many tools it lists.
func (a *app) probe(ctx context.Context, cfg *config.Config, s *config.Server) (int, error) {
	h := a.checkHub(cfg)
	defer h.Close(context.Background())
	st, err := h.Add(ctx, s)
	if err != nil {
		return 0, err
	}
	return st.Tools, nil
}

// checkHub is a throwaway hub for health checks.
func (a *app) checkHub(cfg *config.Config) *hub.Hub {
	opts := daemon.HubOptions(cfg, a.quietLogger())
	opts.DrainTimeout = time.Second
	opts.Upstream.KeepAlive = 0 // a health check ends long before a ping
	return hub.New(opts)
}

func (a *app) mcpRemoveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a server from weft.toml (a running weft drains it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpRemove(cmd.Context(), args[0])
		},
	}
}

// mcpRemove asks a running weft to remove the server (it writes the file
// and drains it as one change), else edits the file under its lock.
func (a *app) mcpRemove(ctx context.Context, name string) error {
	path := config.ResolvePath(a.configFlag)
	cfg, err := config.Load(path)
	live := false
	if err == nil {
		live, err = a.onLive(cfg, func(c adminClient) error {
			return c.do(ctx, http.MethodDelete, gateway.ServersPath+url.PathEscape(name), nil, nil)
		})
	}
	if !live {
		err = config.RemoveServer(path, name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Removed MCP server '%s' from %s\n", name, path)
	return nil
}

func (a *app) mcpImportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "import [FILE]",
		Short: "Import servers from a .mcp.json or Claude Desktop config into weft.toml (default: Claude Desktop's config)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.mcpImport(cmd.Context(), args)
		},
	}
}

// mcpImport records every server of file that weft.toml lacks, as one
// change under the file's lock; a running weft applies it as an outside
// edit.
func (a *app) mcpImport(ctx context.Context, args []string) error {
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	file, already, err := importSource(cfg, args)
	if err != nil {
		return err
	}
	if already {
		fmt.Fprintf(a.stdout, "weft already reads %s and serves its servers as they are; nothing to import.\n", file)
		return nil
	}
	servers, err := config.Import(file)
	if err != nil {
		return err
	}
	path := cfg.Path
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	var added, skipped []string
	_, err = config.Change(ctx, path, config.Txn{Edit: func(data []byte) ([]byte, error) {
		added, skipped = nil, nil
		cur, err := config.LoadData(path, data)
		if err != nil {
			return nil, err
		}
		for _, s := range servers {
			if _, exists := cur.Servers[s.Name]; exists {
				skipped = append(skipped, s.Name)
				continue
			}
			if data, err = config.AddServerTo(data, path, s); err != nil {
				return nil, err
			}
			added = append(added, s.Name)
		}
		return data, nil
	}})
	if err != nil {
		return err
	}
	a.printImported(path, added, skipped)
	return nil
}
