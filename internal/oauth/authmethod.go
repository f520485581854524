package oauth

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// go-sdk chooses how a client authenticates at the token endpoint itself
// (client_secret_post when the server offers both, for a pre-registered
// client and for client_credentials) and has no hook to change it. weft
// prefers client_secret_basic, the default of RFC 6749 and RFC 8414, so its
// auth HTTP client watches the authorization server metadata go-sdk
// fetches and moves a client secret from the form to the Authorization
// header of token requests where the server accepts that.

// authMethods records, by token endpoint, whether the authorization server
// accepts client_secret_basic, from the metadata seen during discovery.
// Only a client registered beforehand (client_id in the oauth table) moves
// to Basic on that ground: a dynamically registered client was registered
// with one method and keeps it, and a reused one is moved only when Basic is
// the method it was registered with (registeredBasic).
type authMethods struct {
	basic           sync.Map // token endpoint → bool
	preregistered   bool     // set once, when the handler is built
	registeredBasic atomic.Bool
}

// metadataPaths are the discovery documents that name token endpoint
// authentication methods (RFC 8414 and OpenID Connect Discovery).
var metadataPaths = []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}

// observe reads authorization server metadata from a discovery response,
// leaving the body readable for go-sdk.
func (a *authMethods) observe(req *http.Request, resp *http.Response) {
	if a == nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !isMetadata(req.URL) {
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	var meta struct {
		TokenEndpoint string   `json:"token_endpoint"`
		Methods       []string `json:"token_endpoint_auth_methods_supported"`
	}
	if json.Unmarshal(body, &meta) != nil || meta.TokenEndpoint == "" {
		return
	}
	// Omitted means client_secret_basic only (RFC 8414 section 2).
	a.basic.Store(meta.TokenEndpoint, len(meta.Methods) == 0 || slices.Contains(meta.Methods, "client_secret_basic"))
}

func isMetadata(u *url.URL) bool {
	for _, p := range metadataPaths {
		if strings.HasPrefix(u.Path, p) || strings.HasSuffix(u.Path, p) {
			return true
		}
	}
	return false
}

// basicAt reports whether this client should use client_secret_basic at
// the token endpoint.
func (a *authMethods) basicAt(tokenURL string) bool {
	if a == nil {
		return false
	}
	if a.registeredBasic.Load() {
		return true
	}
	ok, _ := a.basic.Load(tokenURL)
	b, _ := ok.(bool)
	return b && a.preregistered
}

// preferBasic moves client_id and client_secret from a token request's
// form to HTTP Basic authentication (form-encoded, RFC 6749 section 2.3.1)
// when the endpoint accepts it. A public client (no secret) is left alone.
func (a *authMethods) preferBasic(req *http.Request, form url.Values) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if id == "" || secret == "" || req.Header.Get("Authorization") != "" || !a.basicAt(endpointOf(req.URL)) {
		return
	}
	form.Del("client_id")
	form.Del("client_secret")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
}

// endpointOf is u without its query, as metadata names endpoints.
func endpointOf(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment = "", ""
	return c.String()
}
