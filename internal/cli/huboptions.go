package cli

import (
	"log/slog"

	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/gateway"
	"github.com/weft-dev/weft/internal/hub"
	"github.com/weft-dev/weft/internal/upstream"
)

// hubOptions turns the config's limits and breaker settings into the hub's
// options, so that every command that runs a hub runs it the same way.
func hubOptions(cfg *config.Config, logger *slog.Logger) hub.Options {
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
