// Package faceauth makes weft's HTTP face an OAuth resource server: it
// verifies JWT access tokens (signature against the issuer's JWKS, with key
// rotation and caching; issuer, audience, expiry and scopes), serves the
// RFC 9728 protected-resource metadata, and answers 401 with a
// resource_metadata challenge or 403 for missing scopes. A static bearer
// token configured for the face keeps working beside JWTs.
package faceauth

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"
)

// MetadataPath is where the protected-resource metadata is served; the
// path-suffixed form (MetadataPath + the MCP endpoint) is served too.
const MetadataPath = "/.well-known/oauth-protected-resource"

// DefaultClockSkew is the tolerance on exp and nbf.
const DefaultClockSkew = 60 * time.Second

// signingMethods are the algorithms accepted: asymmetric only, so neither
// "none" nor a key confusion with HMAC can pass.
var signingMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Config describes the authorization server weft trusts.
type Config struct {
	Issuer string
	// Audience is the resource the tokens must be issued for (the face's URL).
	Audience string
	// JWKSURL is where the signing keys are; empty: from the issuer's metadata.
	JWKSURL        string
	RequiredScopes []string
	ClockSkew      time.Duration
	// Endpoint is the path of the MCP endpoint (for the path-suffixed metadata).
	Endpoint string
	// StaticToken, when set, is accepted as well as JWTs.
	StaticToken string
	// UserClaim names the claim that identifies the user (default "sub"):
	// the TokenInfo's UserID, which per-user servers key their instances by.
	UserClaim string
	// HTTPClient fetches the issuer's metadata and keys (default: one with
	// a 10 s timeout).
	HTTPClient *http.Client
}

// Verifier checks inbound access tokens. Close ends its key refreshes.
type Verifier struct {
	cfg    Config
	keys   keyfunc.Keyfunc
	parser *jwt.Parser
	cancel context.CancelFunc
}

// New discovers the signing keys (unless cfg names them) and returns a
// verifier. ctx bounds the discovery only.
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if cfg.Issuer == "" || cfg.Audience == "" {
		return nil, errors.New("gateway.auth needs issuer and audience")
	}
	if cfg.ClockSkew <= 0 {
		cfg.ClockSkew = DefaultClockSkew
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.JWKSURL == "" {
		meta, err := auth.GetAuthServerMetadata(ctx, cfg.Issuer, cfg.HTTPClient)
		if err != nil || meta == nil || meta.JWKSURI == "" {
			return nil, fmt.Errorf("gateway.auth: no jwks_uri in the metadata of issuer %s (%v); set jwks_url", cfg.Issuer, err)
		}
		cfg.JWKSURL = meta.JWKSURI
	}
	life, cancel := context.WithCancel(context.Background())
	keys, err := keyfunc.NewDefaultOverrideCtx(life, []string{cfg.JWKSURL}, keyfunc.Override{
		Client:          cfg.HTTPClient,
		RefreshInterval: time.Hour,
		// An unknown key id (the issuer rotated its keys) re-reads the set,
		// at most every 30 s so that forged kids cannot hammer the issuer.
		RefreshUnknownKID: rate.NewLimiter(rate.Every(30*time.Second), 1),
	})
	if err != nil {
		cancel()
		return nil, fmt.Errorf("gateway.auth: JWKS %s: %w", cfg.JWKSURL, err)
	}
	v := &Verifier{cfg: cfg, keys: keys, cancel: cancel}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(signingMethods),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithLeeway(cfg.ClockSkew),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	)
	return v, nil
}

// Close stops the background refresh of the keys.
func (v *Verifier) Close() { v.cancel() }

// Verify is an auth.TokenVerifier for JWT access tokens.
func (v *Verifier) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(token, claims, v.keys.KeyfuncCtx(ctx)); err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	exp, _ := claims.GetExpirationTime()
	info := &auth.TokenInfo{Scopes: scopes(claims), UserID: v.user(claims), Extra: claims}
	if exp != nil {
		info.Expiration = exp.Time
	}
	return info, nil
}

// user is the value of the configured user claim ("" when the token has
// none, or it is not a string: such a token names no user).
func (v *Verifier) user(c jwt.MapClaims) string {
	u, _ := c[cmp.Or(v.cfg.UserClaim, "sub")].(string)
	return u
}

// scopes reads "scope" (space-separated) or "scp" (a list or a string).
func scopes(c jwt.MapClaims) []string {
	if s, ok := c["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch s := c["scp"].(type) {
	case string:
		return strings.Fields(s)
	case []any:
		return stringsIn(s)
	}
	return nil
}

// stringsIn are the strings of a JSON list.
func stringsIn(list []any) []string {
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// MetadataURL is the URL of the path-suffixed protected-resource metadata.
func (v *Verifier) MetadataURL() string {
	u, err := url.Parse(v.cfg.Audience)
	if err != nil {
		return ""
	}
	u.Path = MetadataPath + u.Path
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// Wrap guards next: the protected-resource metadata is public; every other
// request needs the static token or a valid JWT. The Authorization header
// is removed before next runs, so no client token ever reaches an upstream.
func (v *Verifier) Wrap(next http.Handler) http.Handler {
	meta := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               v.cfg.Audience,
		AuthorizationServers:   []string{v.cfg.Issuer},
		ScopesSupported:        v.cfg.RequiredScopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "weft",
	})
	strip := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Authorization")
		next.ServeHTTP(w, r)
	})
	jwtGuard := auth.RequireBearerToken(v.Verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: v.MetadataURL(),
		Scopes:              v.cfg.RequiredScopes,
		ClockSkew:           v.cfg.ClockSkew,
	})(strip)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == MetadataPath || r.URL.Path == MetadataPath+v.cfg.Endpoint {
			meta.ServeHTTP(w, r)
			return
		}
		if v.staticToken(r) {
			strip.ServeHTTP(w, r)
			return
		}
		jwtGuard.ServeHTTP(w, r)
	})
}

func (v *Verifier) staticToken(r *http.Request) bool {
	if v.cfg.StaticToken == "" {
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(v.cfg.StaticToken)) == 1
}
