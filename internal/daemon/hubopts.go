package daemon

import (
	"log/slog"
	"os"
	"strconv"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// HubOptions turns the config's limits and breaker settings into the hub's
// options, so that every hub weft runs (the daemon's, and the CLI's
// throwaway health-check hubs) runs the same way.
func HubOptions(cfg *config.Config, logger *slog.Logger) hub.Options {
	logins, stamp := upstreamLogins(cfg, logger)
	return hub.Options{
		LoginStamp:         stamp,
		Logger:             logger,
		Separator:          cfg.Gateway.Separator,
		MaxTools:           cfg.Limits.MaxTools,
		Reserved:           gateway.BuiltinNames,
		DrainTimeout:       cfg.Limits.DrainTimeout.Std(),
		MaxConcurrentCalls: cfg.Limits.MaxConcurrentCalls,
		Breaker:            cfg.Breaker,
		Upstream: upstream.Options{
			Logger:          logger,
			MaxMessageBytes: cfg.Limits.MaxMessageBytes,
			KeepAlive:       cfg.Limits.PingInterval.Std(),
			OAuth:           logins,
		},
	}
}

// delegationDepth reads this weft's depth from its environment and hands
// every child it starts the next one, so a chain weft → agent → weft is
// bounded.
func delegationDepth(o *hub.Options) int {
	depth := gateway.ParseDepth(os.Getenv(gateway.DelegationEnv))
	extra := map[string]string{}
	for k, v := range o.Upstream.ExtraEnv {
		extra[k] = v
	}
	extra[gateway.DelegationEnv] = strconv.Itoa(depth + 1)
	o.Upstream.ExtraEnv = extra
	return depth
}
