package oauth

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

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
			res, err := h.m.login.Fetch(ctx, redirect, args.URL)
			if err == nil && res.Iss != "" {
				h.mu.Lock()
				h.issuer = res.Iss
				h.mu.Unlock()
			}
			return res, err
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
		// Reuse the client registered at the previous login, with the
		// authentication method it was registered with.
		h.methods.registeredBasic.Store(prev.AuthStyle == int(oauth2.AuthStyleInHeader))
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
	issuer := h.issuer
	if issuer == "" {
		issuer = origin(c.Endpoint.AuthURL)
	}
	rec := &Record{
		Server:      h.key,
		Issuer:      issuer,
		Resource:    h.resource,
		ClientID:    c.ClientID,
		AuthURL:     c.Endpoint.AuthURL,
		TokenURL:    c.Endpoint.TokenURL,
		AuthStyle:   int(c.Endpoint.AuthStyle),
		RedirectURL: c.RedirectURL,
		Scopes:      c.Scopes,
		Registered:  c.ClientID != h.opts.ClientID,
	}
	if c.ClientSecret != "" && h.methods.basicAt(c.Endpoint.TokenURL) {
		rec.AuthStyle = int(oauth2.AuthStyleInHeader) // as the login's token request went (authmethod.go)
	}
	if rec.Registered {
		rec.ClientSecret = c.ClientSecret
	}
	rec.setToken(tok)
	if err := h.m.store.Save(rec); err != nil {
		return err
	}
	h.rec, h.stamp, h.read = rec, h.m.stamp(), true
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
	c.Transport = resourceTransport{base: base, scopes: h.opts.Scopes, methods: &h.methods, resource: func() string {
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
	// scopes, when configured, replace what a client_credentials grant asks
	// for (the authorization-code flow applies them itself).
	scopes []string
	// methods steers token requests to client_secret_basic (authmethod.go).
	methods *authMethods
}

func (t resourceTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil ||
		!strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		resp, err := t.base.RoundTrip(req)
		if err == nil {
			t.methods.observe(req, resp)
		}
		return resp, err
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("grant_type") != "" {
		if form.Get("resource") == "" {
			form.Set("resource", t.resource())
		}
		if form.Get("grant_type") == "client_credentials" && len(t.scopes) > 0 {
			form.Set("scope", strings.Join(t.scopes, " "))
		}
		t.methods.preferBasic(req, form)
		body = []byte(form.Encode())
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return t.base.RoundTrip(req)
}

// Logout forgets the server's login and, when its authorization server
// has a revocation endpoint, revokes the refresh token there (best effort:
// revoked says whether that happened). A client_credentials server has no
// stored login: its token lives in memory only.
func (m *Manager) Logout(ctx context.Context, cfg *config.Server) (had, revoked bool, err error) {
	server := m.keyFor(cfg)
	rec, err := m.store.Load(server)
	if err != nil || rec == nil {
		return false, false, err
	}
	if rec.ClientSecret == "" && cfg.OAuth != nil && cfg.OAuth.ClientSecretEnv != "" {
		rec.ClientSecret = m.getenv(cfg.OAuth.ClientSecretEnv) // a pre-registered client's secret
	}
	if err := m.store.Delete(server); err != nil {
		return true, false, err
	}
	if rec.RefreshToken == "" || rec.Issuer == "" {
		return true, false, nil
	}
	if err := m.revoke(ctx, rec); err != nil {
		m.logger.Warn("login forgotten, but the refresh token was not revoked", "server", server, "err", err)
		return true, false, nil
	}
	return true, true, nil
}

// revoke sends an RFC 7009 revocation of the refresh token, authenticated
// as the client the token was issued to.
func (m *Manager) revoke(ctx context.Context, rec *Record) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	meta, err := auth.GetAuthServerMetadata(ctx, rec.Issuer, m.client)
	if err != nil || meta == nil || meta.RevocationEndpoint == "" {
		return fmt.Errorf("no revocation endpoint (%v)", err)
	}
	form := url.Values{"token": {rec.RefreshToken}, "token_type_hint": {"refresh_token"}}
	if rec.ClientSecret == "" {
		form.Set("client_id", rec.ClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, meta.RevocationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return err
	}
	drain(resp)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revocation endpoint answered %s", resp.Status)
	}
	return nil
}

// origin is scheme://host of u.
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	return p.Scheme + "://" + p.Host
}
