package upstream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// Version is what weft reports as its client version to upstreams.
var Version = "dev"

// client builds the SDK client whose handlers relay an upstream's
// server-to-client traffic to the peer that caused it.
func (c *Conn) client() *mcp.Client {
	cl := mcp.NewClient(&mcp.Implementation{Name: "weft", Version: Version}, &mcp.ClientOptions{
		Logger:                    c.logger,
		KeepAlive:                 c.opts.KeepAlive,
		KeepAliveFailureThreshold: 2,
		// Input-required results are relayed (inputs.go), not answered by
		// the SDK, so that each client gets them in its own revision's form.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{
			RootsV2:     &mcp.RootCapabilities{ListChanged: true},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		},
		CreateMessageWithToolsHandler: c.createMessage,
		// Never called: relayMiddleware answers elicitation/create first.
		// Declaring it makes the SDK advertise the capability.
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return nil, errors.New("elicitation is relayed by middleware")
		},
		ProgressNotificationHandler: c.relayProgress,
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			c.relayLog(ctx, req.Params)
		},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { c.markDirty() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { c.markDirty() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { c.markDirty() },
		ResourceUpdatedHandler:     c.resourceUpdated,
	})
	cl.AddReceivingMiddleware(c.relayMiddleware)
	cl.AddSendingMiddleware(parkSchemas) // see schema.go
	return cl
}

// createMessage relays an upstream's sampling request to the peer whose
// call is in flight.
func (c *Conn) createMessage(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	peer, ctx, err := c.router.peerFor(ctx)
	if err != nil {
		return nil, fmt.Errorf("sampling from %s: %w", c.cfg.Name, err)
	}
	return peer.CreateMessage(ctx, req.Params)
}

// relayProgress relays an upstream's progress to the call whose token
// (weft's) it carries, under the peer's own token.
func (c *Conn) relayProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	call, ok := c.router.byToken(req.Params.ProgressToken)
	if !ok || call.progressToken == nil || call.peer == nil {
		return
	}
	p := *req.Params
	p.ProgressToken = call.progressToken
	if err := relay(ctx, call, func(ctx context.Context) error { return call.peer.NotifyProgress(ctx, &p) }); err != nil {
		c.logger.Debug("relay progress", "err", err)
	}
}

// relayMiddleware answers an upstream's roots/list with the roots of the
// client whose call is in flight, instead of the SDK's static list, and
// relays elicitation/create ahead of the SDK's own handling (see elicit).
func (c *Conn) relayMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "roots/list":
			peer, ctx, err := c.router.peerFor(ctx)
			if err != nil {
				return nil, fmt.Errorf("roots from %s: %w", c.cfg.Name, err)
			}
			params, _ := req.GetParams().(*mcp.ListRootsParams)
			return peer.ListRoots(ctx, params)
		case "elicitation/create":
			peer, ctx, err := c.router.peerFor(ctx)
			if err != nil {
				return nil, fmt.Errorf("elicitation from %s: %w", c.cfg.Name, err)
			}
			params, _ := req.GetParams().(*mcp.ElicitParams)
			return elicit(ctx, peer, params)
		}
		return next(ctx, method, req)
	}
}

// transport builds the transport for the entry; for stdio it starts the child.
// The transport counts the notifications it reads into order.
func (c *Conn) transport(order *noteOrder) (mcp.Transport, *process, error) {
	switch c.cfg.Type {
	case config.TransportHTTP, config.TransportSSE:
		headers, err := c.cfg.ResolvedHeaders(getenv(environ0()))
		if err != nil {
			return nil, nil, err
		}
		if c.cfg.Type == config.TransportHTTP {
			client, auth := c.httpClient(order, headers), c.oauthHandler()
			// weft's own POSTs (httppost.go) share the client's dialer and
			// settings (their pool is a clone, forPosts) and its OAuth
			// handler (one token, one refresh, one login), adding it as
			// go-sdk's transport does.
			// Their response streams are read by weft alone (httpsse.go),
			// which neither counts nor rewrites them through the body
			// wrappers go-sdk's reads need (forPosts).
			posts := client.Transport.(headerTransport).forPosts()
			c.poster = &posted{client: withOAuth(&http.Client{Transport: posts}, auth), url: c.cfg.Target}
			return &mcp.StreamableClientTransport{
				Endpoint:     c.cfg.Target,
				HTTPClient:   client,
				MaxEventSize: c.opts.MaxMessageBytes,
				OAuthHandler: auth,
			}, nil, nil
		}
		return &mcp.SSEClientTransport{
			Endpoint:     c.cfg.Target,
			HTTPClient:   withOAuth(c.httpClient(order, headers), c.oauthHandler()),
			MaxEventSize: c.opts.MaxMessageBytes,
		}, nil, nil
	}
	environ := c.opts.Environ
	if environ == nil {
		environ = environ0
	}
	declared, err := c.cfg.ResolvedEnv(getenv(environ()))
	if err != nil {
		return nil, nil, err
	}
	if declared == nil {
		declared = map[string]string{} // an entry without env still gets ExtraEnv
	}
	for k, v := range c.opts.ExtraEnv {
		declared[k] = v
	}
	env := ChildEnv(environ(), declared, c.cfg.InheritEnv)
	proc, err := startProcess(c.cfg.Target, c.cfg.Args, env, c.cfg.Cwd, c.logger)
	if err != nil {
		return nil, nil, fmt.Errorf("connect %s: %w", c.cfg.Name, err)
	}
	raw := newRawConn(nil) // its connection is set by rawTransport.Connect
	pipes := &mcp.IOTransport{
		Reader:        newLineFilter(proc.stdout, c.opts.MaxMessageBytes, c.logger, stdioLine(raw, order)),
		Writer:        proc.stdin,
		MaxLineLength: c.opts.MaxMessageBytes,
	}
	return &rawTransport{Transport: countingTransport{Transport: pipes, order: order}, conn: raw}, proc, nil
}

var environ0 = environ

// getenv looks names up in an environment list.
func getenv(env []string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				m[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	return func(k string) string { return m[k] }
}

// httpClient sends the entry's headers on every request. It has no overall
// timeout (that would cut streams); the response-header timeout stops an
// upstream that accepts a request but never answers from blocking weft.
// It keeps up to 96 idle connections: 64 calls in flight, and room for the
// few whose stream is still being finished after the call has returned
// (httpfinish.go), which would otherwise be dialed anew and closed again.
func (c *Conn) httpClient(order *noteOrder, headers map[string]string) *http.Client {
	base := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: c.opts.DialControl}).DialContext,
		ResponseHeaderTimeout: c.cfg.Timeout(),
		MaxIdleConnsPerHost:   96,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{Transport: headerTransport{base: base, headers: headers, order: order, refused: &c.refused, max: c.opts.MaxMessageBytes}}
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	order   *noteOrder
	refused *atomic.Int32 // records a 401 or 403, for the connect error
	max     int           // bytes of one message, for shallowBody
	// sdk is, for weft's POSTs (forPosts), go-sdk's transport, whose idle
	// connections are closed with theirs.
	sdk http.RoundTripper
}

// forPosts is t for weft's own POSTs: the same dialer, headers and
// refusal record, with the response body as net/http gives it. The
// posted call's reader does for itself what shallowBody does for
// go-sdk's reads (shallowSchemas on a long message; notifications
// relayed in order before the call returns, so none is counted), where
// the wrappers copied every line twice more. Their pool is a clone of
// go-sdk's without the response-header timeout: a posted call ends by
// the call's deadline (CallToolRawUntil), which the hub sets from the
// same timeout, earlier, so the transport's own timer (armed, selected
// on and stopped on every request: ~2 µs per call at c=64) never fired.
func (t headerTransport) forPosts() headerTransport {
	t.order, t.max = nil, 0
	if base, ok := t.base.(*http.Transport); ok && base.ResponseHeaderTimeout > 0 {
		posts := base.Clone()
		posts.ResponseHeaderTimeout = 0
		t.base, t.sdk = posts, base
	}
	return t
}

// CloseIdleConnections passes http.Client's call on to the pool (and
// go-sdk's, for the POSTs' transport), which the client finds only on
// its own transport.
func (t headerTransport) CloseIdleConnections() {
	closeIdle(t.base)
	if t.sdk != nil {
		closeIdle(t.sdk)
	}
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && t.refused != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		t.refused.Store(int32(resp.StatusCode))
	}
	if err == nil && t.max > 0 {
		shallowBody(resp, t.max, t.order)
	}
	return resp, err
}
