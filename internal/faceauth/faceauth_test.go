package faceauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// issuer is a test authorization server's key set: it serves its public
// keys as a JWKS at /jwks and its RFC 8414 metadata, and signs tokens.
type issuer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	keys map[string]*ecdsa.PrivateKey // kid → key, all served
}

func newIssuer(t *testing.T) *issuer {
	is := &issuer{keys: map[string]*ecdsa.PrivateKey{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/jwks", is.serveJWKS)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks",
			"authorization_endpoint": is.srv.URL + "/authorize", "token_endpoint": is.srv.URL + "/token",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.addKey(t, "k1")
	return is
}

func (is *issuer) addKey(t *testing.T, kid string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
	return k
}

func (is *issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	defer is.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	var keys []jwkset.JWKMarshal
	for kid, k := range is.keys {
		j, err := jwkset.NewJWKFromKey(&k.PublicKey, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, ALG: jwkset.AlgES256, USE: jwkset.UseSig}})
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		keys = append(keys, j.Marshal())
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
}

// sign makes a token with the key kid, from claims over sensible defaults.
func (is *issuer) sign(t *testing.T, kid string, key *ecdsa.PrivateKey, edit func(jwt.MapClaims)) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": is.srv.URL, "aud": audience, "sub": "alice", "scope": "mcp:tools other",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if edit != nil {
		edit(c)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const audience = "http://127.0.0.1:7777/mcp"

func TestFaceTokens(t *testing.T) {
	is := newIssuer(t)
	is.mu.Lock()
	k1 := is.keys["k1"]
	is.mu.Unlock()
	v, err := New(context.Background(), Config{Issuer: is.srv.URL, Audience: audience, Endpoint: "/mcp",
		RequiredScopes: []string{"mcp:tools"}, StaticToken: "static-secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var sawAuth []string
	var mu sync.Mutex
	h := v.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sawAuth = append(sawAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = io.WriteString(w, "ok")
	}))
	none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"iss": is.srv.URL, "aud": audience, "exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp:tools"})
	noneTok, _ := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	hmac := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": is.srv.URL, "aud": audience, "exp": time.Now().Add(time.Hour).Unix(), "scope": "mcp:tools"})
	hmac.Header["kid"] = "k1"
	hmacTok, _ := hmac.SignedString([]byte("guessable"))
	rows := []struct {
		name  string
		token func() string
		want  int
	}{
		{"valid", func() string { return is.sign(t, "k1", k1, nil) }, 200},
		{"static token", func() string { return "static-secret" }, 200},
		{"no token", func() string { return "" }, 401},
		{"garbage", func() string { return "not.a.jwt" }, 401},
		{"expired", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-2 * time.Minute).Unix() })
		}, 401},
		{"expired within skew", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-10 * time.Second).Unix() })
		}, 200},
		{"not yet valid", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(10 * time.Minute).Unix() })
		}, 401},
		{"no expiry", func() string { return is.sign(t, "k1", k1, func(c jwt.MapClaims) { delete(c, "exp") }) }, 401},
		{"wrong audience", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["aud"] = "http://elsewhere/mcp" })
		}, 401},
		{"wrong issuer", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["iss"] = "http://evil.example" })
		}, 401},
		{"alg none", func() string { return noneTok }, 401},
		{"HS256 (key confusion)", func() string { return hmacTok }, 401},
		{"unknown signer", func() string { return is.sign(t, "k1", stranger, nil) }, 401},
		{"missing scope", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { c["scope"] = "other" })
		}, 403},
		{"scp list", func() string {
			return is.sign(t, "k1", k1, func(c jwt.MapClaims) { delete(c, "scope"); c["scp"] = []string{"mcp:tools"} })
		}, 200},
		{"rotated key", func() string { return is.sign(t, "k2", is.addKey(t, "k2"), nil) }, 200},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, audience, strings.NewReader("{}"))
			if tok := row.token(); tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != row.want {
				t.Fatalf("status %d, want %d (%s)", rec.Code, row.want, rec.Body.String())
			}
			if row.want != 200 && row.want != 0 {
				chal := rec.Header().Get("WWW-Authenticate")
				if !strings.Contains(chal, `resource_metadata="`+v.MetadataURL()+`"`) {
					t.Errorf("WWW-Authenticate %q lacks the resource metadata URL", chal)
				}
			}
		})
	}
	for _, a := range sawAuth {
		if a != "" {
			t.Errorf("the handler behind the guard saw Authorization %q; tokens must not go further", a)
		}
	}
}

func TestFaceMetadata(t *testing.T) {
	is := newIssuer(t)
	v, err := New(context.Background(), Config{Issuer: is.srv.URL, Audience: audience, Endpoint: "/mcp", RequiredScopes: []string{"mcp:tools"}})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	h := v.Wrap(http.NotFoundHandler())
	for _, path := range []string{MetadataPath, MetadataPath + "/mcp"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7777"+path, nil))
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
			Scopes               []string `json:"scopes_supported"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &meta); err != nil || rec.Code != 200 {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		if meta.Resource != audience || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != is.srv.URL {
			t.Errorf("%s: metadata %+v does not name the audience and the issuer", path, meta)
		}
	}
	if got := v.MetadataURL(); got != "http://127.0.0.1:7777"+MetadataPath+"/mcp" {
		t.Errorf("MetadataURL %q", got)
	}
}

func TestNoJWKSFound(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := New(context.Background(), Config{Issuer: srv.URL, Audience: audience})
	if err == nil || !strings.Contains(err.Error(), "set jwks_url") {
		t.Fatalf("err = %v, want a hint to set jwks_url", err)
	}
}
