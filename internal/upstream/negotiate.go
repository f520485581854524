package upstream

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/weft-dev/weft/internal/config"
)

// LegacyProtocolVersion is the newest revision with a session in which a
// server may send sampling, elicitation and roots requests the classic way.
const LegacyProtocolVersion = "2025-11-25"

// NewestProtocolVersion is the newest revision weft speaks: stateless
// requests, server/discover, and input-required results instead of
// server-initiated requests.
const NewestProtocolVersion = "2026-07-28"

// handshake picks, per server, the revision that lets weft relay everything
// the server does, unless the entry pins one:
//
//   - A server with a session of its own (stdio, SSE, stateful Streamable
//     HTTP) gets 2025-11-25. There, classic sampling, elicitation and roots
//     requests work, and a server written for 2026-07-28 turns its
//     input-required results into those same requests for an older client
//     (the SDKs do this for them), so nothing the server does is lost. On
//     2026-07-28 its classic requests would be refused by its own SDK.
//   - A stateless Streamable HTTP server (no session id) cannot send requests
//     to its client at all on the legacy revisions; on 2026-07-28 it asks for
//     input with input-required results, so weft moves to 2026-07-28 when the
//     server offers it.
//   - A server that refuses the legacy handshake gets 2026-07-28.
func (c *Conn) handshake(ctx context.Context) error {
	if c.cfg.ProtocolVersion != "" {
		return c.attempt(ctx, c.cfg.ProtocolVersion, 0)
	}
	legacyErr := c.attempt(ctx, LegacyProtocolVersion, 0)
	if legacyErr != nil {
		var refused *jsonrpc.Error
		if ctx.Err() != nil || !errors.As(legacyErr, &refused) {
			return legacyErr
		}
		c.logger.Info("the server refused the 2025-11-25 handshake; trying the newest protocol", "err", legacyErr)
		c.poster.closeIdle(nil) // the refused attempt's pool; the next attempt makes its own
		if err := c.attempt(ctx, NewestProtocolVersion, c.opts.ProbeTimeout); err != nil {
			return legacyErr
		}
		return nil
	}
	if c.cfg.Type != config.TransportHTTP || c.session.ID() != "" {
		return nil
	}
	return c.preferStateless(ctx)
}

// preferStateless moves a stateless HTTP upstream to the newest revision,
// keeping the legacy session when the server does not offer it.
func (c *Conn) preferStateless(ctx context.Context) error {
	session, cancel, order, info, poster := c.session, c.cancel, c.order, c.info, c.poster
	if err := c.attempt(ctx, NewestProtocolVersion, c.opts.ProbeTimeout); err != nil || c.info.ProtocolVersion < NewestProtocolVersion {
		if err == nil {
			_ = c.session.Close()
			c.cancel()
		}
		// The probe's transport made a poster of its own; weft's POSTs go
		// with the kept session's connections and OAuth handler.
		c.poster.closeIdle(poster)
		c.session, c.cancel, c.order, c.info, c.poster = session, cancel, order, info, poster
		return nil
	}
	_ = session.Close()
	cancel()
	poster.closeIdle(c.poster)
	c.logger.Debug("stateless server: using the newest protocol", "version", c.info.ProtocolVersion)
	return nil
}
