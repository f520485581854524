package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/policy"
)

// shutdownGrace bounds how long weft drains calls when asked to stop.
const shutdownGrace = 10 * time.Second

// runtime is a started hub and face, with its config watcher.
type runtime struct {
	cfg *config.Config
	hub *hub.Hub
	gw  *gateway.Gateway
	// pins withhold tools whose definition changed (SPEC S5).
	pins *policy.Pins
	obs  *observability // metrics, audit log, readiness (observe.go)
}

// start loads the config, connects every enabled upstream in parallel and
// builds the face.
func (a *app) start(ctx context.Context) (*runtime, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	pins, err := policy.OpenPins(policy.PinsPath(cfg.Path), cfg.Security.Pinning, a.logger)
	if err != nil {
		return nil, err
	}
	hopts := hubOptions(cfg, a.logger)
	hopts.ToolFilter = pins.Filter
	if cfg.Security.BlockPrivateURLs {
		hopts.Upstream.DialControl = policy.RefusePrivateDial
	}
	depth := delegationDepth(&hopts)
	var src hubSource
	obs, err := a.newObservability(ctx, cfg, &src)
	if err != nil {
		return nil, err
	}
	hopts.Observer = obs.observer()
	h := hub.New(hopts)
	src.Hub = h
	health, routes := obs.gatewayOptions(cfg)
	actions := &dashboardActions{}
	routes = append(routes, obs.dashboardRoute(cfg, h, actions))
	gw := gateway.New(h, gateway.Options{Logger: a.logger, Version: Version, Plans: a.planService(h, obs),
		Health: health, Routes: routes, Middleware: obs.middleware(),
		Manage:          gateway.ManageOptions{LoadConfig: a.loadConfig},
		Delegation:      gateway.DelegationOptions{Depth: depth, Max: cfg.Security.MaxDelegationDepth},
		MaxMessageBytes: cfg.Limits.MaxMessageBytes,
		Delegate:        obs.delegator(a.delegator(cfg, depth))})
	obs.sources, obs.sessionList = gw.SessionsByFace, gw.SessionList
	res := h.Apply(ctx, cfg.Servers)
	for name, err := range res.Failed {
		a.logger.Warn("server not connected; weft serves the others", "server", name, "err", err)
	}
	obs.applied.Store(true)
	rt := &runtime{cfg: cfg, hub: h, gw: gw, pins: pins, obs: obs}
	actions.rt.Store(rt)
	return rt, nil
}

func (r *runtime) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	r.hub.Close(ctx)
	r.obs.close()
}

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
	rt, err := a.start(ctx)
	if err != nil {
		return err
	}
	defer rt.stop()
	if listen == "" {
		listen = rt.cfg.Gateway.Listen
	}
	hopts, err := httpOptions(rt.cfg, listen)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (choose another address with --listen)", listen, err)
	}
	addr := ln.Addr().String()
	hopts.Listen = addr
	srv := &http.Server{Handler: rt.gw.HandlerWith(hopts), ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(rt.obs.live.Close) // dashboard event streams never end on their own
	stateFile, err := writeServeState(rt.cfg.Path, addr)
	if err != nil {
		a.logger.Warn("cannot record the running address; `weft mcp list` will fall back to a health check", "err", err)
	}
	defer removeServeState(stateFile)
	a.announce(rt, addr)

	stopWatch := a.startWatcher(ctx, rt)
	defer stopWatch()

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

// announce tells the user what weft serves and what to do next; the
// "listening on" line comes last, so whoever waits for it has seen the rest.
func (a *app) announce(rt *runtime, addr string) {
	defer fmt.Fprintf(a.stderr, "weft %s listening on http://%s%s\n", Version, addr, gateway.Endpoint)
	servers := rt.hub.List()
	if len(servers) == 0 {
		fmt.Fprintf(a.stderr, "No MCP servers configured yet (config: %s). Add one, and this weft picks it up:\n", rt.cfg.Path)
		fmt.Fprintln(a.stderr, "  weft mcp add everything npx -- -y @modelcontextprotocol/server-everything")
		return
	}
	active := 0
	for _, s := range servers {
		if s.Status == hub.StatusActive {
			active++
		}
	}
	fmt.Fprintf(a.stderr, "%d of %d MCP servers active, %d tools (config: %s)\n", active, len(servers), len(rt.hub.Catalog().Tools), rt.cfg.Path)
}

func (a *app) mcpServerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp-server",
		Short: "Serve the gateway over stdio, for an MCP client that launches weft",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rt, err := a.start(cmd.Context())
			if err != nil {
				return err
			}
			defer rt.stop()
			stopWatch := a.startWatcher(cmd.Context(), rt)
			defer stopWatch()
			err = rt.gw.ServeStdio(cmd.Context())
			if err != nil && cmd.Context().Err() == nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("stdio session: %w", err)
			}
			return nil
		},
	}
}
