package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamLogLevel is the level weft asks of every upstream: all messages.
// Each client gets what its own logging/setLevel asks for, because weft's
// face filters per client session; one upstream level shared by all clients
// could only be the lowest of theirs anyway.
const upstreamLogLevel mcp.LoggingLevel = "debug"

// newProtocol reports whether the session speaks 2026-07-28 or later, where
// the log level travels in each request's _meta instead of logging/setLevel.
func (c *Conn) newProtocol() bool { return c.info.ProtocolVersion >= "2026-07-28" }

// listWithLogs lists the server's inventory while enableLogs asks for its
// log messages, both before the connection is handed out: the setLevel
// round trip no longer delays the tools (a client connecting to the server
// itself lists without one), and no call can reach the server before it.
func (c *Conn) listWithLogs(ctx context.Context) error {
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		c.enableLogs(ctx)
	}()
	err := c.listAll(ctx)
	<-logged
	return err
}

// enableLogs asks a legacy upstream with the logging capability for its log
// messages: SDK servers (the Go one among them) send none until the client
// sets a level. A refusal is not fatal.
func (c *Conn) enableLogs(ctx context.Context) {
	if c.info.Capabilities.Logging == nil || c.newProtocol() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout())
	defer cancel()
	if err := c.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: upstreamLogLevel}); err != nil {
		c.logger.Warn("the server refused logging/setLevel; its log messages may not reach clients", "err", err)
	}
}

// requestMeta copies a client's _meta for a request to the upstream, less
// the per-request identity of the client's own revision (the SDK adds
// weft's). Nothing the client did not ask for is added: on a 2026-07-28
// upstream, whose servers send a request's log messages only at the level
// it names, a legacy client's logging/setLevel is carried as that level
// (LogLeveler); a newer client names its level in _meta itself.
func (c *Conn) requestMeta(peer Peer, m mcp.Meta) mcp.Meta {
	out := cloneMeta(m)
	for _, k := range []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities} {
		delete(out, k)
	}
	if level, ok := c.addedLevel(peer, m); ok {
		if out == nil {
			out = mcp.Meta{}
		}
		out[mcp.MetaKeyLogLevel] = level
	}
	return orNil(out)
}

// addedLevel is the log level requestMeta adds to m, if any: a legacy
// client's level, for a 2026-07-28 upstream that logs, when m names none.
func (c *Conn) addedLevel(peer Peer, m mcp.Meta) (mcp.LoggingLevel, bool) {
	if !c.newProtocol() || c.info.Capabilities.Logging == nil {
		return "", false
	}
	if _, ok := m[mcp.MetaKeyLogLevel]; ok {
		return "", false
	}
	if l, ok := peer.(LogLeveler); ok {
		if level := l.LogLevel(); level != "" {
			return level, true
		}
	}
	return "", false
}

// LogLeveler is implemented by a peer whose client set a log level on a
// legacy session (logging/setLevel).
type LogLeveler interface {
	LogLevel() mcp.LoggingLevel
}

func orNil(m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	return m
}

// relayLog relays an upstream's log message to the clients it belongs to;
// one that belongs to no client goes to weft's own log.
func (c *Conn) relayLog(ctx context.Context, p *mcp.LoggingMessageParams) {
	calls := c.router.logCalls(ctx)
	if len(calls) == 0 {
		c.logger.Log(ctx, slogLevel(p.Level), "log message from the server, not relayed: no client call in flight",
			"level", p.Level, "logger", p.Logger, "data", truncate(logText(p.Data), maxStderrLine))
		return
	}
	for _, cl := range calls {
		if err := relay(ctx, cl, func(ctx context.Context) error { return cl.peer.Log(ctx, p) }); err != nil {
			c.logger.Debug("relay log message", "err", err)
		}
	}
}

// logCalls picks the calls an upstream's log message is relayed to. Nothing
// in a log message ties it to a request, so: the call ctx is linked to, when
// the SDK links it; else every call in flight, one per client; else, when
// none is, the newest ones answered within progressGrace (a message sent
// just before a result may be handled after it). A call without a client
// (plans, the agent) takes its messages with it. None means the message is
// unsolicited.
func (r *router) logCalls(ctx context.Context) []*call {
	if box, ok := ctx.Value(peerKey{}).(peerBox); ok {
		if box.peer == nil {
			return nil
		}
		return []*call{{peer: box.peer}}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire()
	ids := make([]int64, 0, len(r.calls))
	inFlight := false
	for id, c := range r.calls {
		ids = append(ids, id)
		inFlight = inFlight || !c.done
	}
	slices.Sort(ids)
	var out []*call
	for _, id := range slices.Backward(ids) { // newest first
		c := r.calls[id]
		if (inFlight && c.done) || c.peer == nil || holds(out, c.peer) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// holds reports whether calls already has one for peer p.
func holds(calls []*call, p Peer) bool {
	t := reflect.TypeOf(p)
	if !t.Comparable() {
		return false
	}
	for _, c := range calls {
		if reflect.TypeOf(c.peer) == t && c.peer == p {
			return true
		}
	}
	return false
}

// relay sends one notification for call cl: first within the client's own
// request, so that on Streamable HTTP it travels on that request's stream
// ahead of the result, and, when that stream is already closed (the
// notification trailed the result), on the session.
func relay(ctx context.Context, cl *call, send func(context.Context) error) error {
	if cl.ctx != nil {
		if err := send(linkedCtx{Context: ctx, values: cl.values()}); err == nil {
			return nil
		}
	}
	return send(ctx)
}

// linkedCtx has the cancellation of one context and the values of another
// first, then its own.
type linkedCtx struct {
	context.Context
	values context.Context
}

func (c linkedCtx) Value(key any) any {
	if v := c.values.Value(key); v != nil {
		return v
	}
	return c.Context.Value(key)
}

func slogLevel(l mcp.LoggingLevel) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	case "error", "critical", "alert", "emergency":
		return slog.LevelError
	}
	return slog.LevelInfo
}

func logText(data any) string {
	if s, ok := data.(string); ok {
		return s
	}
	if b, err := json.Marshal(data); err == nil {
		return string(b)
	}
	return fmt.Sprint(data)
}
