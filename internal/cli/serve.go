package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/daemon"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
)

// shutdownGrace bounds how long weft drains calls when asked to stop.
const shutdownGrace = 10 * time.Second

func (a *app) serveCommand() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway over Streamable HTTP (with admin API and config reload)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd.Context(), listen)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "address to listen on (default [gateway] listen, else "+config.DefaultListen+")")
	return cmd
}

func (a *app) serve(ctx context.Context, listen string) error {
	d, err := a.startDaemon(ctx)
	if err != nil {
		return err
	}
	defer stopDaemon(d)
	cfg := d.Config()
	if listen == "" {
		listen = cfg.Gateway.Listen
	}
	hopts, err := daemon.HTTPOptions(ctx, cfg, listen)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another address with --listen)", listen, err)
	}
	addr := ln.Addr().String()
	hopts.Listen = addr
	srv := gateway.NewHTTPServer(d.Gateway().HandlerWith(hopts), hopts)
	srv.RegisterOnShutdown(d.CloseEventStreams) // the dashboard's event streams never end on their own
	unannounce, err := daemon.Announce(d.Path(), addr)
	if err != nil {
		a.logger.Warn("cannot record the running address; `weft mcp list` will fall back to a health check", "err", err)
	}
	defer unannounce()
	announceCtx, stopAnnounce := context.WithCancel(ctx)
	waitAnnounce := a.announce(announceCtx, d, addr)
	defer func() { stopAnnounce(); waitAnnounce() }()

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.logger.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		a.logger.Warn("shutdown", "err", err)
	}
	return nil
}

// announce tells the user where weft listens, at once, and what it serves
// once every upstream's first connection attempt is over (in the
// background: a hung upstream delays only that line).
func (a *app) announce(ctx context.Context, d *daemon.Daemon, addr string) (wait func()) {
	fmt.Fprintf(a.stderr, "weft %s listening on http://%s%s\n", Version, addr, gateway.Endpoint)
	if len(d.Hub().Names()) == 0 {
		fmt.Fprintf(a.stderr, "No MCP servers configured yet (config: %s). Add one, and this weft picks it up:\n", d.Path())
		fmt.Fprintln(a.stderr, "  weft mcp add everything npx -- -y @modelcontextprotocol/server-everything")
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Settle(ctx)
		if ctx.Err() == nil {
			a.announceServers(d)
		}
	}()
	return func() { <-done }
}

// announceServers prints how many upstreams are active and the tool count.
func (a *app) announceServers(d *daemon.Daemon) {
	servers := d.Hub().List()
	active := 0
	for _, s := range servers {
		if s.Status == hub.StatusActive {
			active++
		}
	}
	fmt.Fprintf(a.stderr, "%d of %d MCP servers active, %d tools (config: %s)\n", active, len(servers), len(d.Hub().Catalog().Tools), d.Path())
}

func (a *app) mcpServerCommand() *cobra.Command {
	var settle time.Duration
	var agent string
	cmd := &cobra.Command{
		Use:   "mcp-server",
		Short: "Serve the gateway over stdio, for an MCP client that launches weft",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := a.startDaemon(cmd.Context())
			if err != nil {
				return err
			}
			defer stopDaemon(d)
			face, err := d.AgentFace(agent)
			if err != nil {
				return err
			}
			if settle > 0 {
				// A one-shot client (a delegated `claude -p`) lists tools once:
				// let the first connection attempts finish, within the bound.
				ctx, cancel := context.WithTimeout(cmd.Context(), settle)
				d.Settle(ctx)
				cancel()
			}
			err = face.ServeStdio(cmd.Context())
			if err != nil && cmd.Context().Err() == nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("stdio session: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "serve as this agent: only its servers, tools and limits (see `weft agents list`)")
	cmd.Flags().DurationVar(&settle, "settle", 0, "before answering the client, wait up to this long for every server's first connection attempt (for clients that list tools only once); 0 answers at once")
	return cmd
}
