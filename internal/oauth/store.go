// Package oauth makes weft an OAuth client of protected remote MCP servers:
// it keeps each server's tokens and registration in a token store (the OS
// keychain or a 0600 file), builds the go-sdk OAuth handler a connection
// uses, refreshes tokens before they expire, and reports a server whose
// login is gone as needing one. The protocol itself (discovery, registration,
// PKCE, token exchange) is go-sdk's auth and oauthex packages.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-dev/weft/internal/filelock"
	"golang.org/x/oauth2"
)

// ErrNeedsLogin reports a server whose stored login is missing, expired
// beyond refresh, or revoked: only `weft mcp login NAME` can fix it.
var ErrNeedsLogin = errors.New("needs login")

// NeedsLoginError names the server and the command that fixes it. User is
// set for a server that keeps one login per user: that user's login is
// missing, and the server itself is fine.
type NeedsLoginError struct{ Server, User string }

func (e *NeedsLoginError) Error() string {
	if e.User != "" {
		return fmt.Sprintf("%s needs a login for user %s: log in through a client that can open URLs, or run `weft mcp login %s --user %s`", e.Server, e.User, e.Server, e.User)
	}
	return fmt.Sprintf("%s needs login: run `weft mcp login %s`", e.Server, e.Server)
}

// Unwrap lets callers branch with errors.Is(err, ErrNeedsLogin).
func (e *NeedsLoginError) Unwrap() error { return ErrNeedsLogin }

// Record is what weft keeps of one server's login: the client registration
// it used (so that a later login reuses a dynamically registered client), the
// endpoints, and the tokens. It is secret as a whole.
type Record struct {
	Server string `json:"server"`
	// Issuer is the authorization server, for revocation at logout.
	Issuer       string   `json:"issuer,omitempty"`
	Resource     string   `json:"resource"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	AuthURL      string   `json:"auth_url,omitempty"`
	TokenURL     string   `json:"token_url"`
	AuthStyle    int      `json:"auth_style,omitempty"`
	RedirectURL  string   `json:"redirect_url,omitempty"`
	Scopes       []string `json:"scopes,omitempty"`
	// Registered marks a client obtained by dynamic registration (or a
	// metadata document): login reuses it instead of registering again.
	Registered   bool      `json:"registered,omitempty"`
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Obtained is when the access token was issued to weft.
	Obtained time.Time `json:"obtained,omitzero"`
	// Env holds a user's secrets for a per-user stdio server, by variable.
	Env map[string]string `json:"env,omitempty"`
}

// Token returns the record's tokens in oauth2's shape.
func (r *Record) Token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// setToken stores tok, keeping the old refresh token when the server did
// not rotate it.
func (r *Record) setToken(tok *oauth2.Token) {
	r.AccessToken, r.TokenType, r.Expiry, r.Obtained = tok.AccessToken, tok.TokenType, tok.Expiry, time.Now()
	if tok.RefreshToken != "" {
		r.RefreshToken = tok.RefreshToken
	}
}

// dueForRefresh reports whether the access token should be refreshed now:
// a minute before it expires, or after four fifths of a shorter lifetime.
func (r *Record) dueForRefresh(now time.Time) bool {
	if r.Expiry.IsZero() {
		return false
	}
	margin := refreshMargin
	if life := r.Expiry.Sub(r.Obtained); !r.Obtained.IsZero() && life/5 < margin {
		margin = life / 5
	}
	return r.Expiry.Sub(now) <= margin
}

// config returns the oauth2 client configuration the record was made with.
func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     r.ClientID,
		ClientSecret: r.ClientSecret,
		Endpoint:     oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)},
		RedirectURL:  r.RedirectURL,
		Scopes:       r.Scopes,
	}
}

// Store keeps records by server name. Every change also touches the store's
// stamp file, so that a running weft notices logins and logouts made by
// another weft process whatever the backend.
type Store interface {
	// Load returns the server's record, or nil when there is none.
	Load(server string) (*Record, error)
	Save(rec *Record) error
	Delete(server string) error
	// Kind is "keychain" or "file", for messages.
	Kind() string
	// Stamp changes whenever any record changes, in this process or another.
	// It reads the stamp afresh, and so also refreshes the cached copy the
	// process's handlers check on every request (stamp.go): weft serve's
	// login watcher calls it every second.
	Stamp() string
}

// lockRefresh takes the cross-process lock that serialises refreshes.
func lockRefresh(s Store) (func(), error) {
	l, ok := s.(interface{ refreshLockPath() string })
	if !ok {
		return func() {}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unlock, err := filelock.Lock(ctx, l.refreshLockPath())
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	return unlock, nil
}

// Token store kinds accepted by [security] token_store and WEFT_TOKEN_STORE.
const (
	StoreAuto     = "auto"
	StoreKeychain = "keychain"
	StoreFile     = "file"
)

// StateDir is weft's state directory: WEFT_HOME, else ~/.weft.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("WEFT_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for weft's token store (set WEFT_HOME): %w", err)
	}
	return filepath.Join(home, ".weft"), nil
}

// OpenStore opens the token store kind names (WEFT_TOKEN_STORE wins over
// it); auto uses the OS keychain when one answers, else the file.
func OpenStore(kind string, getenv func(string) string) (Store, error) {
	if v := getenv("WEFT_TOKEN_STORE"); v != "" {
		kind = v
	}
	dir, err := StateDir(getenv)
	if err != nil {
		return nil, err
	}
	file := newFileStore(dir)
	switch strings.ToLower(kind) {
	case "", StoreAuto:
		if keychainAvailable() {
			return &keychainStore{stamp: file.stampPath(), fallback: file}, nil
		}
		return file, nil
	case StoreKeychain:
		if !keychainAvailable() {
			return nil, errors.New("token_store is keychain but no OS keychain answers here; use token_store = \"file\" or \"auto\"")
		}
		return &keychainStore{stamp: file.stampPath()}, nil
	case StoreFile:
		return file, nil
	}
	return nil, fmt.Errorf("unknown token store %q; use auto, keychain or file", kind)
}
