package oauth

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/weft-dev/weft/internal/config"
	"golang.org/x/oauth2"
)

// innerHandler builds, once, go-sdk's handler for the server's grant: the
// authorization-code handler (client-ID metadata document, the configured
// or previously registered client, or dynamic registration; PKCE and the
// resource indicator are go-sdk's) or the client-credentials handler.
func (h *handler) innerHandler() (auth.OAuthHandler, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inner != nil {
		return h.inner, nil
	}
	var inner auth.OAuthHandler
	var err error
	if h.opts.EffectiveGrant() == config.GrantClientCredentials {
		inner, err = extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{
				ClientID:         h.opts.ClientID,
				ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: h.m.getenv(h.opts.ClientSecretEnv)},
			},
			HTTPClient: h.authClient(h.resource),
		})
	} else {
		inner, err = h.codeHandlerLocked()
	}
	if err != nil {
		return nil, err
	}
	h.inner = inner
	return inner, nil
}

func (h *handler) codeHandlerLocked() (auth.OAuthHandler, error) {
	redirect, err := h.redirectURL(h.currentLocked())
	if err != nil {
		return nil, err
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              h.authClient(h.resource),
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if r := resourceFrom(args.URL); r != "" {
				h.mu.Lock()
				h.resource = r
				h.mu.Unlock()
			}
			return h.m.login.Fetch(ctx, redirect, args.URL)
		},
		NewTokenSource: func(_ context.Context, c *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			if err := h.saveLogin(c, tok); err != nil {
				return nil, err
			}
			return tokenSource{h}, nil
		},
	}
	if scopes := h.opts.Scopes; len(scopes) > 0 {
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	if u := h.opts.ClientMetadataURL; u != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: u}
	} else if u := h.m.login.ClientMetadataURL; u != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: u}
	}
	switch prev := h.currentLocked(); {
	case h.opts.ClientID != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.opts.ClientID}
		if secret := h.m.getenv(h.opts.ClientSecretEnv); secret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
	case prev != nil && prev.Registered && prev.RedirectURL == redirect:
		// Reuse the client registered at the previous login.
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: prev.ClientID}
		if prev.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: prev.ClientSecret}
		}
	default:
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:   "weft",
				RedirectURIs: []string{redirect},
				GrantTypes:   []string{"authorization_code", "refresh_token"},
			},
		}
	}
	return auth.NewAuthorizationCodeHandler(cfg)
}

// saveLogin stores the tokens of a finished flow with the client they
// were issued to. A secret that came from the environment is not stored.
func (h *handler) saveLogin(c *oauth2.Config, tok *oauth2.Token) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := &Record{
		Server:      h.name,
		Resource:    h.resource,
		ClientID:    c.ClientID,
		AuthURL:     c.Endpoint.AuthURL,
		TokenURL:    c.Endpoint.TokenURL,
		AuthStyle:   int(c.Endpoint.AuthStyle),
		RedirectURL: c.RedirectURL,
		Scopes:      c.Scopes,
		Registered:  c.ClientID != h.opts.ClientID,
	}
	if rec.Registered {
		rec.ClientSecret = c.ClientSecret
	}
	rec.setToken(tok)
	if err := h.m.store.Save(rec); err != nil {
		return err
	}
	h.rec, h.stamp, h.read = rec, h.m.store.Stamp(), true
	return nil
}

// authClient is the HTTP client of discovery, registration and token
// requests: it adds the resource indicator to every token request that
// lacks one (refresh and client_credentials grants), as the MCP
// authorization spec asks.
func (h *handler) authClient(resource string) *http.Client {
	c := *h.m.client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = resourceTransport{base: base, resource: func() string {
		if resource != "" {
			return resource
		}
		return h.target
	}}
	return &c
}

type resourceTransport struct {
	base     http.RoundTripper
	resource func() string
}

func (t resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil ||
		!strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("grant_type") != "" && form.Get("resource") == "" {
		form.Set("resource", t.resource())
		body = []byte(form.Encode())
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(req)
}

// Logout forgets the server's login. It revokes nothing the server does
// not offer to revoke; a client_credentials server only loses its cached
// token.
func (m *Manager) Logout(server string) (bool, error) {
	rec, err := m.store.Load(server)
	if err != nil {
		return false, err
	}
	if rec == nil {
		return false, nil
	}
	return true, m.store.Delete(server)
}
