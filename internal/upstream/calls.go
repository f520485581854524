package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listAll lists every kind of item the server has the capability for,
// following pagination to the end, and replaces the inventory.
func (c *Conn) listAll(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout())
	defer cancel()
	caps := c.info.Capabilities
	var inv Inventory
	var toolsErr, resourcesErr, promptsErr error
	// The lists are independent requests: asked for together, a server
	// with tools, resources and prompts costs one round trip, not four.
	// A failed list's error outranks those of the lists after it (tools,
	// resources, prompts), so its failure ends them rather than waits for
	// them, as when they were asked for one after another.
	afterTools, endAfterTools := context.WithCancel(ctx)
	defer endAfterTools()
	afterResources, endAfterResources := context.WithCancel(afterTools)
	defer endAfterResources()
	var wg sync.WaitGroup
	if caps.Tools != nil {
		wg.Go(func() {
			if inv.Tools, toolsErr = c.listTools(ctx); toolsErr != nil {
				endAfterTools()
				return
			}
			inv.Digests = digests(inv.Tools)
		})
	}
	if caps.Resources != nil {
		wg.Go(func() {
			if inv.Resources, resourcesErr = collect(c.session.Resources(afterTools, nil)); resourcesErr != nil {
				endAfterResources()
			}
		})
		wg.Go(func() {
			var err error
			// Templates are optional even for servers with resources.
			if inv.Templates, err = collect(c.session.ResourceTemplates(afterResources, nil)); err != nil {
				c.logger.Debug("resources/templates/list failed", "err", err)
				inv.Templates = nil
			}
		})
	}
	if caps.Prompts != nil {
		wg.Go(func() { inv.Prompts, promptsErr = collect(c.session.Prompts(afterResources, nil)) })
	}
	wg.Wait()
	switch {
	case toolsErr != nil:
		return fmt.Errorf("tools/list: %w", toolsErr)
	case resourcesErr != nil:
		return fmt.Errorf("resources/list: %w", resourcesErr)
	case promptsErr != nil:
		return fmt.Errorf("prompts/list: %w", promptsErr)
	}
	c.mu.Lock()
	c.inv = inv
	c.mu.Unlock()
	return nil
}

func collect[T any](seq func(func(*T, error) bool)) ([]*T, error) {
	var out []*T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// markDirty asks for a re-list; a burst of notifications is one re-list.
func (c *Conn) markDirty() {
	select {
	case c.relist <- struct{}{}:
	default:
	}
}

// relistLoop re-lists after list_changed. A re-list in flight absorbs the
// notifications that arrive meanwhile (markDirty keeps one pending), and
// re-lists are at least RelistInterval apart: an upstream flooding
// list_changed costs a few re-lists a second, and clients hear of a few
// changes a second, however fast it sends them.
func (c *Conn) relistLoop() {
	defer c.wg.Done()
	interval := c.opts.RelistInterval
	if interval <= 0 {
		interval = DefaultRelistInterval
	}
	for {
		select {
		case <-c.closing:
			return
		case <-c.relist:
		}
		if err := c.listAll(c.life); err != nil {
			c.logger.Warn("re-list after list_changed failed", "err", err)
		} else if c.opts.OnInventory != nil {
			c.opts.OnInventory()
		}
		quiet := time.NewTimer(interval)
		select {
		case <-c.closing:
			quiet.Stop()
			return
		case <-quiet.C:
		}
	}
}

// DefaultRelistInterval is the least time between two re-lists of one
// upstream after list_changed.
const DefaultRelistInterval = 250 * time.Millisecond

// CallTool calls the upstream tool name (its own, un-namespaced name) on
// behalf of peer. The peer's progress token, when given, is replaced by one
// weft mints so that progress is relayed to exactly this peer.
func (c *Conn) CallTool(ctx context.Context, peer Peer, name string, args json.RawMessage, meta mcp.Meta) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Name: name, Meta: c.requestMeta(peer, meta)}
	if len(args) > 0 {
		params.Arguments = args
	}
	ctx, done := c.track(ctx, peer, params)
	defer done()
	res, err := roundTrip(ctx, peer, func(answers mcp.InputResponseMap, state string) (*mcp.CallToolResult, error) {
		p := *params
		p.InputResponses, p.RequestState = answers, state
		return c.session.CallTool(withPeer(ctx, peer), &p)
	}, func(r *mcp.CallToolResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
	return res, closedErr(ctx, err)
}

// GetPrompt gets the upstream prompt name on behalf of peer.
func (c *Conn) GetPrompt(ctx context.Context, peer Peer, name string, args map[string]string, meta mcp.Meta) (*mcp.GetPromptResult, error) {
	params := &mcp.GetPromptParams{Name: name, Arguments: args, Meta: c.requestMeta(peer, meta)}
	ctx, done := c.track(ctx, peer, params)
	defer done()
	res, err := roundTrip(ctx, peer, func(answers mcp.InputResponseMap, state string) (*mcp.GetPromptResult, error) {
		p := *params
		p.InputResponses, p.RequestState = answers, state
		return c.session.GetPrompt(withPeer(ctx, peer), &p)
	}, func(r *mcp.GetPromptResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
	return res, closedErr(ctx, err)
}

// ReadResource reads uri on behalf of peer.
func (c *Conn) ReadResource(ctx context.Context, peer Peer, uri string, meta mcp.Meta) (*mcp.ReadResourceResult, error) {
	params := &mcp.ReadResourceParams{URI: uri, Meta: c.requestMeta(peer, meta)}
	ctx, done := c.track(ctx, peer, params)
	defer done()
	res, err := roundTrip(ctx, peer, func(answers mcp.InputResponseMap, state string) (*mcp.ReadResourceResult, error) {
		p := *params
		p.InputResponses, p.RequestState = answers, state
		return c.session.ReadResource(withPeer(ctx, peer), &p)
	}, func(r *mcp.ReadResourceResult) (mcp.InputRequestMap, string) { return r.InputRequests, r.RequestState })
	return res, closedErr(ctx, err)
}

// Complete forwards a completion request. The client's protocol metadata
// stays behind, as on every other forwarded request: it is the client's
// session with weft, not weft's with this server.
func (c *Conn) Complete(ctx context.Context, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	p := *params
	p.Meta = c.requestMeta(nil, params.Meta)
	return c.session.Complete(ctx, &p)
}

type progressParams interface {
	GetProgressToken() any
	SetProgressToken(any)
}

// track registers a call with the router and swaps in weft's progress token;
// the peer's own token is kept to relay progress back under it. The call's
// context is tied to the connection's life: a call still in flight when the
// connection is closed (drain timeout, shutdown) is cancelled upstream and
// ends with ErrClosedInFlight, instead of waiting on a server weft no longer
// talks to (an HTTP session's close does not end its pending requests). The
// func it returns, deferred by the caller, first lets the progress and log
// messages the upstream sent before its result reach the peer, then retires
// the call.
func (c *Conn) track(ctx context.Context, peer Peer, p progressParams) (context.Context, func()) {
	token := p.GetProgressToken()
	t := c.begin(ctx, peer, token, true)
	if token != nil {
		p.SetProgressToken(t.call.id)
	}
	return t.ctx, func() { c.end(t) }
}

// tracked is a call begin registered with the router, for end.
type tracked struct {
	ctx    context.Context // the call's own, or the caller's
	call   *call
	cancel context.CancelCauseFunc // nil: the call has no context of its own
}

// begin registers a call with the router (track without the token's
// swap). own gives the call a context of its own, which Close cancels
// with ErrClosedInFlight; without it the call must end by itself when the
// connection closes (rawConn.call).
func (c *Conn) begin(ctx context.Context, peer Peer, token any, own bool) tracked {
	var cancel context.CancelCauseFunc
	if own {
		ctx, cancel = context.WithCancelCause(ctx)
	}
	return tracked{ctx: ctx, call: c.router.start(ctx, peer, token, cancel), cancel: cancel} // Close cancels it (closeAll)
}

// end first lets the progress and log messages the upstream sent before
// its result reach the peer, then retires the call.
func (c *Conn) end(t tracked) {
	c.order.settle(t.ctx)
	c.router.end(t.call)
	if t.cancel != nil {
		t.cancel(nil)
	}
}

// ErrClosedInFlight ends a call whose connection was closed under it.
var ErrClosedInFlight = errors.New("connection closed while the call was in flight (drain timeout or shutdown); retry the call")

// closedErr reports ErrClosedInFlight for a call cut off by Close, and
// names what other transport errors mean for the caller.
func closedErr(ctx context.Context, err error) error {
	if err != nil && (errors.Is(err, ErrClosedInFlight) || errors.Is(context.Cause(ctx), ErrClosedInFlight)) {
		return ErrClosedInFlight
	}
	return explain(err)
}

func cloneMeta(m mcp.Meta) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	out := make(mcp.Meta, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
