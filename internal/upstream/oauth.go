package upstream

import (
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"
)

// oauthHandler returns the entry's OAuth handler, if weft manages a login
// for it (Options.OAuth).
func (c *Conn) oauthHandler() auth.OAuthHandler {
	if c.opts.OAuth == nil {
		return nil
	}
	return c.opts.OAuth(c.cfg)
}

// oauthTransport gives the SSE transport, which has no OAuth hook of its
// own, what go-sdk's Streamable HTTP transport does: the bearer token on
// every request, and one authorization and retry after a 401 or 403.
type oauthTransport struct {
	base    http.RoundTripper
	handler auth.OAuthHandler
}

// CloseIdleConnections passes http.Client's call on to the pool.
func (t oauthTransport) CloseIdleConnections() { closeIdle(t.base) }

// closeIdle closes rt's idle connections, if it keeps any.
func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t oauthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	send := func(first bool) (*http.Request, *http.Response, error) {
		token, err := t.token(req)
		if err != nil {
			return nil, nil, err
		}
		r := req
		if token != "" || !first {
			// A copy to set the token on (a RoundTripper leaves its request
			// as it is); without one, the first try sends req itself, and
			// a retry has its body from GetBody.
			r = req.Clone(req.Context())
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, nil, err
				}
				r.Body = body
			}
			if token != "" {
				r.Header.Set("Authorization", "Bearer "+token)
			}
		}
		resp, err := t.base.RoundTrip(r)
		return r, resp, err
	}
	r, resp, err := send(true)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // cannot replay the body
	}
	if err := t.handler.Authorize(req.Context(), r, resp); err != nil {
		return nil, err
	}
	_, resp, err = send(false)
	return resp, err
}

// token is the access token to send with r, from the handler; a refused
// refresh sends no token, so that the server's 401 leads to Authorize, as
// go-sdk does.
func (t oauthTransport) token(r *http.Request) (string, error) {
	ts, err := t.handler.TokenSource(r.Context())
	if err != nil || ts == nil {
		return "", err
	}
	tok, err := ts.Token()
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re) && re.ErrorCode == "invalid_grant":
		return "", nil
	case err != nil:
		return "", err
	}
	return tok.AccessToken, nil
}

// withOAuth wraps an HTTP client's transport with h, when there is one.
func withOAuth(c *http.Client, h auth.OAuthHandler) *http.Client {
	if h == nil {
		return c
	}
	c.Transport = oauthTransport{base: c.Transport, handler: h}
	return c
}
