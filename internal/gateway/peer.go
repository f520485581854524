package gateway

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/upstream"
)

// newestVersion is the first revision whose clients take input-required
// results instead of server-initiated requests.
const newestVersion = upstream.NewestProtocolVersion

// sessionPeer relays an upstream's server-to-client traffic to the client
// whose request caused it, in that client's revision: a legacy client gets
// classic requests; a client on 2026-07-28 gets input-required results
// (it relays them, see upstream.InputRelay). A client that did not declare a
// capability gets a clear error instead of a request it cannot answer.
type sessionPeer struct {
	ss      *mcp.ServerSession
	caps    *mcp.ClientCapabilities
	version string
	levels  *logLevels
	// park is the call's parked state for a 2026-07-28 client (inputreq.go).
	park *parkedCall
	// ephemeral: the session is a stateless HTTP request's, closed with its
	// response (upstream.Ephemeral).
	ephemeral bool
}

// requestInfo is what a peer needs to know of the client's request.
type requestInfo interface {
	ClientCapabilities() *mcp.ClientCapabilities
	ProtocolVersion() string
}

// peerFor builds the peer for one client request.
func (g *Gateway) peerFor(ss *mcp.ServerSession, req requestInfo) sessionPeer {
	caps := req.ClientCapabilities()
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	return sessionPeer{ss: ss, caps: caps, version: req.ProtocolVersion(), levels: g.levels, ephemeral: g.stateless(ss)}
}

// stateless reports whether ss serves one stateless HTTP request: it has no
// id and serveIO does not run it. No session at all is a stateless request
// the relay answers (relaystateless.go).
func (g *Gateway) stateless(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	if ss.ID() != "" {
		return false
	}
	_, stdio := g.stdioSessions.Load(ss)
	return !stdio
}

// Ephemeral implements upstream.Ephemeral.
func (p sessionPeer) Ephemeral() bool { return p.ephemeral }

// RelaysInputRequests reports whether the client takes input-required
// results itself.
func (p sessionPeer) RelaysInputRequests() bool { return p.version >= newestVersion }

// parks reports whether a call for this client runs parked (inputreq.go),
// on a goroutine of its own that can outlive the request: a 2026-07-28
// client that can be asked for input (every input request is put to the
// client only under the capability CreateMessage, Elicit and ListRoots
// check), or a retry that answers a parked call (state, its request
// state). Any other call cannot be asked anything, so it runs on the
// request's goroutine as a legacy client's does: the parked goroutine's
// start, stack and hand-offs are ~8 µs of CPU per call at 64 in flight.
func (p sessionPeer) parks(state string) bool {
	if !p.RelaysInputRequests() {
		return false
	}
	return p.caps.Sampling != nil || p.caps.Elicitation != nil || p.caps.RootsV2 != nil || strings.HasPrefix(state, parkPrefix)
}

// LogLevel is the level a legacy client set with logging/setLevel.
func (p sessionPeer) LogLevel() mcp.LoggingLevel {
	if p.RelaysInputRequests() || p.levels == nil {
		return ""
	}
	return p.levels.get(p.ss)
}

func (p sessionPeer) CreateMessage(ctx context.Context, params *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error) {
	if p.caps.Sampling == nil {
		return nil, errors.New("the client connected to weft does not support sampling")
	}
	if p.RelaysInputRequests() {
		return askInput[*mcp.CreateMessageWithToolsResult](ctx, p.park, params)
	}
	return p.ss.CreateMessageWithTools(ctx, params)
}

func (p sessionPeer) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if p.caps.Elicitation == nil {
		return nil, errors.New("the client connected to weft does not support elicitation")
	}
	if p.RelaysInputRequests() {
		return askInput[*mcp.ElicitResult](ctx, p.park, params)
	}
	return elicitAsIs(ctx, p.ss, params)
}

// elicitAsIs sends an elicitation to the client and returns its answer as
// the client gave it. ServerSession.Elicit re-validates the requested schema
// after the client answered, more strictly than the spec (it refuses titled
// multi-select enums); the upstream that asked is the one to judge the
// answer. keepAnswer hides the content from that check and elicitAsIs puts
// it back.
func elicitAsIs(ctx context.Context, ss *mcp.ServerSession, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	kept := &keptAnswer{}
	res, err := ss.Elicit(context.WithValue(ctx, keptAnswerKey{}, kept), params)
	if err != nil || kept.res == nil {
		return res, err
	}
	return kept.res, nil
}

type keptAnswerKey struct{}

type keptAnswer struct{ res *mcp.ElicitResult }

// keepAnswer is sending middleware: it keeps the client's answer to an
// elicitation sent by elicitAsIs and hands the SDK a copy without content,
// which it passes on unchecked.
func keepAnswer(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		kept, ok := ctx.Value(keptAnswerKey{}).(*keptAnswer)
		er, isElicit := res.(*mcp.ElicitResult)
		if err != nil || !ok || !isElicit || method != "elicitation/create" || er == nil {
			return res, err
		}
		kept.res = er
		stripped := *er
		stripped.Content = nil
		return &stripped, nil
	}
}

func (p sessionPeer) ListRoots(ctx context.Context, params *mcp.ListRootsParams) (*mcp.ListRootsResult, error) {
	if p.caps.RootsV2 == nil {
		return nil, errors.New("the client connected to weft does not support roots")
	}
	if p.RelaysInputRequests() {
		return askInput[*mcp.ListRootsResult](ctx, p.park, params)
	}
	return p.ss.ListRoots(ctx, params)
}

func (p sessionPeer) NotifyProgress(ctx context.Context, params *mcp.ProgressNotificationParams) error {
	ss, ctx, ok := p.target(ctx)
	if !ok {
		return nil
	}
	return ss.NotifyProgress(ctx, params)
}

func (p sessionPeer) Log(ctx context.Context, params *mcp.LoggingMessageParams) error {
	ss, ctx, ok := p.target(ctx)
	if !ok {
		return nil
	}
	return ss.Log(ctx, params)
}

// target is where a notification for the call goes: for a parked call, the
// client request now waiting on it (none between the client's requests:
// nothing could deliver it); else the request that made the call. A
// request the stateless relay answers has no session and takes none: the
// relay answers only requests that asked for no progress and no logs.
func (p sessionPeer) target(ctx context.Context) (*mcp.ServerSession, context.Context, bool) {
	ss := p.ss
	if p.park != nil {
		w := p.park.current()
		if w == nil {
			return nil, nil, false
		}
		ss, ctx = w.ss, w.ctx
	}
	return ss, ctx, ss != nil
}

// logLevels remembers the level each legacy client session set, which a
// 2026-07-28 upstream needs in each request's _meta.
type logLevels struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession]mcp.LoggingLevel
}

func (l *logLevels) get(ss *mcp.ServerSession) mcp.LoggingLevel {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[ss]
}

// middleware records logging/setLevel and forgets the session when it ends.
func (l *logLevels) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "logging/setLevel" || err != nil {
			return res, err
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
		if !ok || p == nil {
			return res, err
		}
		l.mu.Lock()
		_, known := l.m[ss]
		l.m[ss] = p.Level
		l.mu.Unlock()
		if !known {
			go func() {
				_ = ss.Wait()
				l.mu.Lock()
				delete(l.m, ss)
				l.mu.Unlock()
			}()
		}
		return res, err
	}
}
