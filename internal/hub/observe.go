package hub

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Outcome says how a tool call ended, in the words metrics and the audit
// log use.
type Outcome string

// The outcomes of a call.
const (
	OutcomeOK          Outcome = "ok"           // the server answered
	OutcomeToolError   Outcome = "tool_error"   // the server answered with isError
	OutcomeTimeout     Outcome = "timeout"      // no answer within the server's timeout
	OutcomeBreakerOpen Outcome = "breaker_open" // refused by the open breaker
	OutcomeLimit       Outcome = "limit"        // no free call slot before the timeout
	OutcomeCancelled   Outcome = "cancelled"    // the caller gave up
	OutcomeUnavailable Outcome = "unavailable"  // unknown tool, or server not active
	OutcomeError       Outcome = "error"        // transport or protocol failure
)

// Caller says who made a call: the face, its session and the agent or
// user behind it. Faces put it in the context with WithCaller.
type Caller struct {
	Face    string `json:"face,omitempty"` // "http", "stdio", "agent", "plan", …
	Session string `json:"session,omitempty"`
	Agent   string `json:"agent,omitempty"`  // the configured agent the client is connected as, or a plan acting for the user
	Client  string `json:"client,omitempty"` // the MCP client's own name (clientInfo)
	User    string `json:"user,omitempty"`   // the signed-in user of the face ([gateway.auth])
}

type callerKey struct{}

// WithCaller returns ctx carrying who is calling, for observers.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller WithCaller stored, or the zero Caller.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// Call describes one tool call for observers. Observers must not modify
// Args; they may replace Meta in CallStarted (a tracer adds traceparent).
type Call struct {
	ID     uint64
	Caller Caller
	Tool   string // the exposed name
	Server string // "" when the tool is unknown
	Args   json.RawMessage
	Meta   mcp.Meta
	Start  time.Time

	// Set when the call ends.
	Duration time.Duration // all of it, weft's share included
	Upstream time.Duration // the upstream's share (0 if never sent)
	Outcome  Outcome
	Err      error
}

// StatusRemoved appears only in a ServerEvent: the server is gone.
const StatusRemoved Status = "removed"

// ServerEvent tells observers that a server's status changed.
type ServerEvent struct {
	Name   string
	Status Status
	// Reconnected is true when the server became active again after it had
	// been connected before.
	Reconnected bool
	Err         string
}

// Observer watches the hub's work: metrics, traces, the audit log and the
// dashboard plug in here. The hub calls it outside its locks, on the
// caller's goroutine: methods must be quick and safe for concurrent use.
type Observer interface {
	// CallStarted may return a derived context (a span) for the call.
	CallStarted(ctx context.Context, c *Call) context.Context
	CallEnded(ctx context.Context, c *Call)
	ServerChanged(ev ServerEvent)
}

// Observers fans every event out to each observer in order.
type Observers []Observer

// CallStarted implements Observer.
func (os Observers) CallStarted(ctx context.Context, c *Call) context.Context {
	for _, o := range os {
		ctx = o.CallStarted(ctx, c)
	}
	return ctx
}

// CallEnded implements Observer.
func (os Observers) CallEnded(ctx context.Context, c *Call) {
	for _, o := range os {
		o.CallEnded(ctx, c)
	}
}

// ServerChanged implements Observer.
func (os Observers) ServerChanged(ev ServerEvent) {
	for _, o := range os {
		o.ServerChanged(ev)
	}
}

var callIDs atomic.Uint64

// observeStart opens a call record, or returns nil when nobody observes.
func (h *Hub) observeStart(ctx context.Context, name string, args json.RawMessage, meta mcp.Meta) (context.Context, *Call) {
	if h.opts.Observer == nil {
		return ctx, nil
	}
	c := &Call{ID: callIDs.Add(1), Caller: CallerFrom(ctx), Tool: name, Args: args, Meta: meta, Start: time.Now()}
	return h.opts.Observer.CallStarted(ctx, c), c
}

// observeEnd closes a call record.
func (h *Hub) observeEnd(ctx context.Context, c *Call, res *mcp.CallToolResult, err error) {
	if c == nil {
		return
	}
	c.Duration = time.Since(c.Start)
	c.Err = err
	c.Outcome = outcomeOf(ctx, res, err)
	h.opts.Observer.CallEnded(ctx, c)
}

// serverChanged tells the observer about s's current status.
func (h *Hub) serverChanged(s *server, reconnected bool) {
	if h.opts.Observer == nil {
		return
	}
	st := s.status()
	h.opts.Observer.ServerChanged(ServerEvent{Name: s.name, Status: st.Status, Reconnected: reconnected, Err: st.LastError})
}

// outcomeOf classifies the end of a call; ctx is the caller's context.
func outcomeOf(ctx context.Context, res *mcp.CallToolResult, err error) Outcome {
	switch {
	case err == nil && res != nil && res.IsError:
		return OutcomeToolError
	case err == nil:
		return OutcomeOK
	}
	return failureOf(ctx, err)
}

// failureOf is the outcome of a call that failed with err. It is apart
// from outcomeOf so that the target errors.As needs on the heap is made
// only for a failed call, not for every call.
func failureOf(ctx context.Context, err error) Outcome {
	var open *CircuitOpenError
	switch {
	case ctx.Err() != nil:
		return OutcomeCancelled
	case errors.As(err, &open):
		return OutcomeBreakerOpen
	case errors.Is(err, ErrNoCallSlot):
		return OutcomeLimit
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return OutcomeTimeout
	case errors.Is(err, ErrUnknownTool), errors.Is(err, ErrNotFound), errors.Is(err, ErrDraining),
		errors.Is(err, ErrDisconnected), errors.Is(err, ErrConnecting), errors.Is(err, ErrHubClosed):
		return OutcomeUnavailable
	}
	return OutcomeError
}
