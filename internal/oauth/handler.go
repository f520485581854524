package oauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/weft-dev/weft/internal/config"
	"golang.org/x/oauth2"
)

// refreshMargin is how long before expiry an access token is refreshed, so
// that a call never starts with a token about to lapse.
const refreshMargin = time.Minute

// Login is how an interactive command (mcp add, mcp login) gets an
// authorization code. weft serve has none: a server whose login is gone
// there needs `weft mcp login`.
type Login struct {
	// RedirectURL returns the redirect URL for a callback port (0: any free
	// port); nil means the loopback http://127.0.0.1:PORT/callback.
	RedirectURL func(port int) (string, error)
	// Fetch sends the user to the authorization URL and waits for the
	// redirect to redirectURL.
	Fetch func(ctx context.Context, redirectURL, authURL string) (*auth.AuthorizationResult, error)
	// ClientMetadataURL is used when a server's oauth table names none.
	ClientMetadataURL string
}

// Manager builds the OAuth handler of each remote server from its config
// and the token store.
type Manager struct {
	store  Store
	login  *Login
	getenv func(string) string
	client *http.Client
	logger *slog.Logger
	// user, when set, keys per-user servers' logins by user (AsUser).
	user string
	// stamp is the store's stamp as every request asks for it: cached,
	// without the file system (stamp.go).
	stamp func() string
}

// ManagerOptions configure a Manager. The zero value is usable but for Store.
type ManagerOptions struct {
	Store Store
	// Login enables the interactive flow; nil for weft serve.
	Login  *Login
	Getenv func(string) string
	// HTTPClient makes discovery, registration and token requests.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// NewManager returns a manager over opts.Store.
func NewManager(opts ManagerOptions) *Manager {
	m := &Manager{store: opts.Store, login: opts.Login, getenv: opts.Getenv, client: opts.HTTPClient, logger: opts.Logger}
	if m.getenv == nil {
		m.getenv = func(string) string { return "" }
	}
	if m.client == nil {
		m.client = &http.Client{Timeout: 30 * time.Second}
	}
	if m.logger == nil {
		m.logger = slog.Default()
	}
	m.stamp = cachedStamp(m.store)
	return m
}

// OpenManager opens the token store kind names (see OpenStore) and returns
// a manager over it with the environment's variables.
func OpenManager(kind string, logger *slog.Logger, login *Login) (*Manager, error) {
	store, err := OpenStore(kind, os.Getenv)
	if err != nil {
		return nil, err
	}
	return NewManager(ManagerOptions{Store: store, Login: login, Getenv: os.Getenv, Logger: logger}), nil
}

// Store returns the manager's token store.
func (m *Manager) Store() Store { return m.store }

// Handler returns the OAuth handler for a remote server, or nil for a stdio
// server and for one that sends its own Authorization header.
func (m *Manager) Handler(cfg *config.Server) auth.OAuthHandler {
	if m == nil || cfg.Transport() == config.TransportStdio {
		return nil
	}
	for k := range cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	h := &handler{m: m, name: cfg.Name, key: m.keyFor(cfg), user: m.userFor(cfg), target: cfg.Target, opts: cfg.OAuth, resource: cfg.Target}
	if h.opts == nil {
		h.opts = &config.OAuth{}
	}
	h.methods.preregistered = h.opts.ClientID != ""
	return h
}

// handler is one server's auth.OAuthHandler: it serves the stored token,
// refreshes it, and on a 401 either runs the interactive flow (mcp add,
// mcp login) or reports that the server needs a login (weft serve).
type handler struct {
	m        *Manager
	name     string
	key      string // the store's key: the name, or the name and the user
	user     string // "" unless the server keeps one login per user
	target   string
	opts     *config.OAuth
	resource string
	issuer   string // from the authorization response, when the server sends it
	methods  authMethods

	mu    sync.Mutex
	stamp string // store stamp rec was read at
	rec   *Record
	read  bool
	inner auth.OAuthHandler // go-sdk's handler for the interactive or machine flow
}

// TokenSource returns the stored token's source, or nil before any login.
func (h *handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	if h.opts.EffectiveGrant() == config.GrantClientCredentials {
		inner, err := h.innerHandler()
		if err != nil {
			return nil, err
		}
		return inner.TokenSource(ctx)
	}
	h.mu.Lock()
	rec := h.currentLocked()
	h.mu.Unlock()
	if rec == nil {
		return nil, nil
	}
	return tokenSource{h}, nil
}

// Authorize answers a 401 or 403 from the server.
func (h *handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.opts.EffectiveGrant() == config.GrantAuthorizationCode && !h.interactive() {
		defer drain(resp)
		if resp.StatusCode == http.StatusForbidden && !insufficientScope(resp) {
			return nil // not an authorization problem: let the caller see the 403
		}
		if resp.StatusCode == http.StatusUnauthorized && h.refreshOn401(req) == nil {
			return nil
		}
		if !h.managed() && !bearerChallenge(resp) {
			return fmt.Errorf("%s answered %s without an OAuth challenge; check the credentials it expects", h.name, resp.Status)
		}
		return &NeedsLoginError{Server: h.name, User: h.user}
	}
	inner, err := h.innerHandler()
	if err != nil {
		drain(resp)
		return err
	}
	return inner.Authorize(ctx, req, resp)
}

func (h *handler) interactive() bool { return h.m.login != nil }

// refreshOn401 refreshes a token the server refused although it had not
// expired (revoked early, or clocks apart); it fails when there is nothing
// to refresh or the token sent was already a fresh one.
func (h *handler) refreshOn401(req *http.Request) error {
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.currentLocked()
	if rec == nil || rec.RefreshToken == "" {
		return ErrNeedsLogin
	}
	if sent != "" && sent != rec.AccessToken {
		return nil // another request refreshed meanwhile: retry with that
	}
	_, err := h.refreshLocked(rec)
	return err
}

// currentLocked returns the stored record, re-read when the store changed.
// It runs on every request: the stamp comes from the process's cache, so
// the file system is touched only when the store changed (or, once per
// stampTTL, to look for a change made by another process).
func (h *handler) currentLocked() *Record {
	stamp := h.m.stamp()
	if h.read && stamp == h.stamp {
		return h.rec
	}
	rec, err := h.m.store.Load(h.key)
	if err != nil {
		h.m.logger.Warn("token store unreadable", "server", h.name, "err", err)
		return h.rec
	}
	if rec != nil && rec.Resource != "" && !sameServer(rec, h) {
		rec = nil // recorded for another URL under this name
	}
	h.rec, h.stamp, h.read = rec, stamp, true
	return rec
}

// sameServer reports whether rec was made for h's server URL.
func sameServer(rec *Record, h *handler) bool {
	return rec.Resource == h.resource || rec.Resource == h.target || strings.HasPrefix(h.target, strings.TrimSuffix(rec.Resource, "/")+"/")
}

// token returns a valid access token, refreshing it shortly before expiry.
func (h *handler) token() (*oauth2.Token, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rec := h.currentLocked()
	if rec == nil {
		// Logged out meanwhile: send no token, so the 401 says what to do.
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "logged out"}
	}
	tok := rec.Token()
	if !rec.dueForRefresh(time.Now()) || rec.RefreshToken == "" {
		return tok, nil
	}
	return h.refreshLocked(rec)
}

// refreshLocked redeems the refresh token and stores the result. A refusal
// by the token endpoint is reported as invalid_grant, which makes go-sdk
// send the request without a token and so reach Authorize.
func (h *handler) refreshLocked(rec *Record) (*oauth2.Token, error) {
	// One refresh at a time across weft processes: a server that rotates
	// refresh tokens would otherwise refuse the loser's, and that server
	// would look logged out.
	unlock, err := lockRefresh(h.m.store)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if latest, err := h.m.store.Load(h.key); err == nil && latest != nil && latest.AccessToken != rec.AccessToken {
		h.rec, h.stamp = latest, h.m.stamp()
		if !latest.dueForRefresh(time.Now()) {
			return latest.Token(), nil // another process refreshed it meanwhile
		}
		rec = latest
	}
	cfg := rec.config()
	if cfg.ClientSecret == "" && h.opts.ClientSecretEnv != "" && !rec.Registered {
		cfg.ClientSecret = h.m.getenv(h.opts.ClientSecretEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ctx = context.WithValue(ctx, oauth2.HTTPClient, h.authClient(rec.Resource))
	tok, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: rec.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			h.m.logger.Warn("token refresh refused; the server needs a login", "server", h.name, "error", re.ErrorCode)
			return nil, &oauth2.RetrieveError{Response: re.Response, ErrorCode: "invalid_grant", ErrorDescription: "refresh refused"}
		}
		return nil, fmt.Errorf("refresh the token of %s: %w", h.name, err)
	}
	next := *rec
	next.setToken(tok)
	if err := h.m.store.Save(&next); err != nil {
		return nil, err
	}
	h.rec, h.stamp = &next, h.m.stamp()
	h.m.logger.Info("access token refreshed", "server", h.name, "expires", next.Expiry)
	return next.Token(), nil
}

// tokenSource hands out the handler's current token.
type tokenSource struct{ h *handler }

func (t tokenSource) Token() (*oauth2.Token, error) { return t.h.token() }

// managed reports whether weft holds or is configured for a login here.
func (h *handler) managed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	o := h.opts
	configured := o.ClientID != "" || o.Grant != "" || o.ClientMetadataURL != "" || len(o.Scopes) > 0 || o.RedirectPort != 0 || o.PerUser
	return configured || h.currentLocked() != nil
}

// bearerChallenge reports a WWW-Authenticate: Bearer challenge.
func bearerChallenge(resp *http.Response) bool {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header[http.CanonicalHeaderKey("WWW-Authenticate")])
	for _, c := range cs {
		if c.Scheme == "bearer" {
			return true
		}
	}
	return false
}

// insufficientScope reports a 403 asking for more scopes (step-up).
func insufficientScope(resp *http.Response) bool {
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header[http.CanonicalHeaderKey("WWW-Authenticate")])
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

// redirectURL returns the callback URL for the login. A client registered
// at an earlier login is tied to its redirect URL, so its port is used
// again while it is free.
func (h *handler) redirectURL(prev *Record) (string, error) {
	if h.m.login.RedirectURL != nil {
		return h.m.login.RedirectURL(h.opts.RedirectPort)
	}
	if prev != nil && prev.Registered && h.opts.RedirectPort == 0 && loopbackFree(prev.RedirectURL) {
		return prev.RedirectURL, nil
	}
	return LoopbackRedirect(h.opts.RedirectPort)
}

// resourceFrom reads the resource indicator go-sdk put in the authorization
// URL, so that refreshes name the same resource.
func resourceFrom(authURL string) string {
	u, err := url.Parse(authURL)
	if err != nil {
		return ""
	}
	return u.Query().Get("resource")
}
