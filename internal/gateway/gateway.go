// Package gateway is weft's MCP server face: it re-exposes the hub's catalog
// over stdio and Streamable HTTP and routes every request to its upstream.
package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/agentview"
	"github.com/weft-dev/weft/internal/depth"
	"github.com/weft-dev/weft/internal/hub"
)

// protocolVersions are the revisions the face negotiates, newest first. A
// client on 2026-07-28 gets an upstream's sampling, elicitation and roots
// requests as input-required results (inputreq.go).
var protocolVersions = []string{newestVersion, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Options configure the face.
type Options struct {
	Logger  *slog.Logger
	Version string
	// Plans backs the weft__plan_* tools (plantools.go); nil: they say plans
	// are unavailable.
	Plans Plans
	// HTTP hardens the Streamable HTTP face (Host, Origin, token, body).
	HTTP HTTPOptions
	// Manage configures the mcp_manage built-in.
	Manage ManageOptions
	// MaxMessageBytes bounds one message from a stdio client.
	MaxMessageBytes int
	// Delegation bounds weft → … → weft chains.
	Delegation DelegationOptions
	// Delegate backs weft__delegate (delegatetool.go); nil: it says
	// delegation is unavailable.
	Delegate Delegator
	// Login, when set, lets a client that can open URLs log weft in to a
	// server that needs a login, in the middle of a call (login.go).
	Login LoginFunc
	// Health decides when /readyz answers ready; Routes are extra endpoints
	// on the HTTP face, behind its guards (health.go).
	Health HealthOptions
	Routes []Route
	// Middleware wraps every request a client sends, outermost first
	// (tracing).
	Middleware []mcp.Middleware
	// Agents, when set, serves each agent's face at /agents/NAME/mcp
	// (agentfaces.go).
	Agents Agents
	// View is what the face serves of the hub's catalog (view.go); nil:
	// every configured server, listed as the hub lists them.
	View *agentview.View
	// PerUser, when set, names the users of each per-user server, keyed by
	// server, for /admin/status and /admin/servers/NAME.
	PerUser func() map[string]*hub.PerUserStatus
}

// Gateway keeps an MCP server in step with the hub's catalog.
type Gateway struct {
	hub    *hub.Hub
	opts   Options
	logger *slog.Logger
	// quietLogger rate-limits the SDK's lines that one event repeats per
	// session (ratelog.go).
	quietLogger *slog.Logger
	server      *mcp.Server

	mu        sync.Mutex // serialises sync
	tools     map[string][32]byte
	prompts   map[string][32]byte
	resources map[string][32]byte
	templates map[string][32]byte

	stdioSessions sync.Map // *mcp.ServerSession → true, for sessions serveIO runs

	subMu   sync.Mutex
	subs    map[string]map[*mcp.ServerSession]bool // URI → subscribed sessions; see subscribe.go
	subAt   map[string]string                      // URI → the hub server subscribed at
	watched map[*mcp.ServerSession]bool            // sessions with subscriptions, watched until they end

	levels  *logLevels // legacy clients' log levels; see peer.go
	parking parking    // calls waiting on a 2026-07-28 client's input; see inputreq.go

	view      atomic.Pointer[agentview.View] // see view.go
	agentHTTP agentHTTP                      // see agentfaces.go

	// listedTools are the upstream tools the face has registered, for
	// the relay (relay.go); toolDefs their definitions by name, for
	// tools/list (toolstubs.go); written by sync.
	listedTools atomic.Pointer[map[string]bool]
	statusTail  atomic.Pointer[encodedCatalogStatus] // statusjson.go
	toolDefs    atomic.Pointer[map[string]*mcp.Tool]
	relayChain  mcp.MethodHandler // see relay.go
	pages       listPages         // tools/list pages as go-sdk answered them; see listpages.go
	// headerTools are the listed tools whose schemas bind arguments to
	// headers (guarded by mu), published in headerBound for the stateless
	// relay (relaystateless.go); info is the face's server info, infoJSON
	// that as go-sdk encodes it in a result's _meta (rawslot.go).
	headerTools map[string]bool
	headerBound atomic.Pointer[map[string]bool]
	info        *mcp.Implementation
	infoJSON    []byte
	// bareForward is the _meta forwarded for a call whose own _meta is
	// empty (delegate), made once and only read; nil when such a call is
	// refused.
	bareForward mcp.Meta
}

// BuiltinNames are the tools weft itself exposes; upstreams never shadow them.
var BuiltinNames = []string{searchToolName, callToolName, ManageToolName, planListName, planShowName, planDryName, planRunName, delegateToolName}

// New creates the face and subscribes it to catalog changes.
func New(h *hub.Hub, opts Options) *Gateway {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	g := &Gateway{
		hub: h, opts: opts, logger: opts.Logger, quietLogger: newQuietLogger(opts.Logger, 5*time.Second),
		tools: map[string][32]byte{}, prompts: map[string][32]byte{},
		resources: map[string][32]byte{}, templates: map[string][32]byte{},
		subs: map[string]map[*mcp.ServerSession]bool{}, watched: map[*mcp.ServerSession]bool{},
		levels:      &logLevels{m: map[*mcp.ServerSession]mcp.LoggingLevel{}},
		headerTools: map[string]bool{},
		info:        &mcp.Implementation{Name: "weft", Title: "weft MCP gateway", Version: opts.Version},
	}
	// An Implementation always encodes; were it not to, the stateless
	// relay would take the typed path (statelessRaw).
	g.infoJSON, _ = json.Marshal(g.info)
	if next, err := depth.Next(opts.Delegation.Depth, 0, opts.Delegation.Max); err == nil {
		g.bareForward = mcp.Meta{DelegationMetaKey: next}
	}
	if opts.View == nil {
		opts.View = agentview.Everything("", -1)
	}
	g.view.Store(opts.View)
	g.server = mcp.NewServer(g.info, &mcp.ServerOptions{
		Logger:       g.quietLogger,
		Instructions: "weft exposes the tools, resources and prompts of several MCP servers, each namespaced as <server>__<name>. Use weft__search_tools to find tools that are not listed.",
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
			Logging:   &mcp.LoggingCapabilities{},
		},
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			res, err := g.completeThrough(ctx, req.Params)
			return res, requestError(err)
		},
		SupportedProtocolVersions: protocolVersions,
		SubscribeHandler:          g.subscribe,
		UnsubscribeHandler:        g.unsubscribe,
	})
	g.server.AddReceivingMiddleware(g.listedDefinitions) // innermost: outer ones see the definitions
	g.server.AddReceivingMiddleware(g.explainMissingTools, g.levels.middleware)
	g.server.AddSendingMiddleware(keepAnswer)
	if len(opts.Middleware) > 0 {
		g.server.AddReceivingMiddleware(opts.Middleware...) // added last: outermost
	}
	g.buildRelayChain()
	g.addBuiltins()
	g.addPlanTools(opts.Plans)
	g.addDelegateTool(opts.Delegate)
	h.OnChange(g.sync)
	h.OnResourceUpdated(g.resourceUpdated)
	g.sync(h.Catalog())
	return g
}

// Server is the underlying MCP server, for transports to run.
func (g *Gateway) Server() *mcp.Server { return g.server }

// sync adds what is new or changed in cat and removes what is gone. The SDK
// notifies clients of every add, so unchanged items are left alone.
func (g *Gateway) sync(full *hub.Catalog) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cat := g.View().Of(full)
	g.syncTools(cat.ListedTools())

	keep := map[string]bool{}
	for _, p := range cat.Prompts {
		keep[p.Name] = true
		if g.changed(g.prompts, p.Name, p.Def) {
			g.safely("prompt "+p.Name, func() { g.server.AddPrompt(p.Def, g.forwardPrompt) })
		}
	}
	g.server.RemovePrompts(stale(g.prompts, keep)...)

	keep = map[string]bool{}
	for _, r := range cat.Resources {
		keep[r.Def.URI] = true
		if g.changed(g.resources, r.Def.URI, r.Def) {
			g.safely("resource "+r.Def.URI, func() { g.server.AddResource(r.Def, g.forwardRead) })
		}
	}
	g.server.RemoveResources(stale(g.resources, keep)...)

	keep = map[string]bool{}
	for _, t := range cat.Templates {
		keep[t.Def.URITemplate] = true
		if g.changed(g.templates, t.Def.URITemplate, t.Def) {
			g.safely("template "+t.Def.URITemplate, func() { g.server.AddResourceTemplate(t.Def, g.forwardRead) })
		}
	}
	g.server.RemoveResourceTemplates(stale(g.templates, keep)...)
}

// syncTools registers the listed tools that are new or changed and removes
// those gone. The kept tools/list pages end only when it does either: a
// catalog built again with the same tools (a reload that changed nothing,
// as after weft saves its own tool pins) lists the same pages, so a client
// keeps being answered from them. A page is go-sdk's encoding of each
// listed tool's name and definition, and a tool whose digest (its
// upstream's definition) and name are unchanged encodes the same.
func (g *Gateway) syncTools(listedTools []*hub.Tool) {
	keep := make(map[string]bool, len(listedTools))
	var changed []*hub.Tool
	for _, t := range listedTools {
		keep[t.Name] = true
		if g.changedDigest(g.tools, t.Name, t.Digest) {
			changed = append(changed, t)
		}
	}
	gone := stale(g.tools, keep)
	if len(changed) > 0 || len(gone) > 0 {
		g.pages.changing()
		defer g.pages.changed()
	}
	g.publishDefinitions(listedTools)
	for _, t := range changed {
		g.noteHeaders(t.Name, t.Def)
		g.safely("tool "+t.Name, func() { g.server.AddTool(g.registration(t), g.forwardTool) })
	}
	g.server.RemoveTools(gone...)
	g.listedTools.Store(&keep)
	g.publishHeaders(keep)
}

// changed records def's hash under key and reports whether it differs from
// what is registered.
func (g *Gateway) changed(seen map[string][32]byte, key string, def any) bool {
	b, err := json.Marshal(def)
	if err != nil {
		return false
	}
	return g.changedDigest(seen, key, sha256.Sum256(b))
}

// changedDigest records a tool's digest (computed once, when its upstream
// listed it) under key and reports whether it differs from what is
// registered: no tool is marshalled or hashed again here.
func (g *Gateway) changedDigest(seen map[string][32]byte, key string, sum [32]byte) bool {
	if prev, ok := seen[key]; ok && prev == sum {
		return false
	}
	seen[key] = sum
	return true
}

// stale returns and forgets the keys of seen not in keep.
func stale(seen map[string][32]byte, keep map[string]bool) []string {
	var out []string
	for k := range seen {
		if !keep[k] {
			out = append(out, k)
			delete(seen, k)
		}
	}
	return out
}

// safely registers one item; the SDK panics on some malformed definitions,
// and one bad upstream item must not take weft down.
func (g *Gateway) safely(what string, add func()) {
	defer func() {
		if r := recover(); r != nil {
			g.logger.Warn("upstream item refused", "item", what, "reason", fmt.Sprint(r))
		}
	}()
	add()
}

func (g *Gateway) forwardTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	meta, err := g.delegateCall(ctx, req)
	if err != nil {
		return toolError(err)
	}
	ctx = hub.WithCaller(ctx, g.callerOfCall(req))
	res, err := g.forwardCall(ctx, req, meta)
	if err != nil {
		return toolError(err)
	}
	return res, nil
}

func (g *Gateway) forwardPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	res, err := g.getPrompt(ctx, req)
	return res, requestError(err)
}

func (g *Gateway) forwardRead(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	res, err := g.readResource(ctx, req)
	return res, requestError(err)
}
