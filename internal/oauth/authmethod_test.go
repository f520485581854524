package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestTokenRequestsPreferBasicAuth: a client registered beforehand moves
// its secret to HTTP Basic when the server's metadata accepts
// client_secret_basic (or names no method); otherwise, and for dynamically
// registered or public clients, the request stays as go-sdk made it.
func TestTokenRequestsPreferBasicAuth(t *testing.T) {
	rows := []struct {
		name            string
		methods         []string
		preregistered   bool
		registeredBasic bool
		secret          string
		wantBasic       bool
	}{
		{"both offered", []string{"client_secret_post", "client_secret_basic"}, true, false, "s3cret&x", true},
		{"none named: basic is the default", nil, true, false, "s3cret", true},
		{"post only", []string{"client_secret_post"}, true, false, "s3cret", false},
		{"registered dynamically", []string{"client_secret_post", "client_secret_basic"}, false, false, "s3cret", false},
		{"reused registration made for basic", []string{"client_secret_post"}, false, true, "s3cret", true},
		{"public client", []string{"client_secret_post", "client_secret_basic"}, true, false, "", false},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			var mu sync.Mutex
			var gotForm url.Values
			var gotUser, gotPass string
			var gotBasic bool
			mux := http.NewServeMux()
			var srv *httptest.Server
			mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
				meta := map[string]any{"issuer": srv.URL, "token_endpoint": srv.URL + "/token"}
				if row.methods != nil {
					meta["token_endpoint_auth_methods_supported"] = row.methods
				}
				_ = json.NewEncoder(w).Encode(meta)
			})
			mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				mu.Lock()
				gotForm = r.PostForm
				gotUser, gotPass, gotBasic = r.BasicAuth()
				mu.Unlock()
				_, _ = w.Write([]byte(`{"access_token":"a","token_type":"Bearer"}`))
			})
			srv = httptest.NewServer(mux)
			defer srv.Close()
			methods := &authMethods{preregistered: row.preregistered}
			methods.registeredBasic.Store(row.registeredBasic)
			rt := resourceTransport{base: http.DefaultTransport, resource: func() string { return "https://mcp.example/mcp" }, methods: methods}
			resp, err := (&http.Client{Transport: rt}).Get(srv.URL + "/.well-known/oauth-authorization-server")
			if err != nil {
				t.Fatal(err)
			}
			var meta map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta["token_endpoint"] == nil {
				t.Fatalf("the metadata did not reach go-sdk intact: %v %v", meta, err)
			}
			resp.Body.Close()
			form := url.Values{"grant_type": {"client_credentials"}, "client_id": {"weft id"}}
			if row.secret != "" {
				form.Set("client_secret", row.secret)
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/token", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err = rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			if gotBasic != row.wantBasic {
				t.Fatalf("Basic auth used: %v, want %v (form %v)", gotBasic, row.wantBasic, gotForm)
			}
			if row.wantBasic {
				if gotForm.Has("client_secret") || gotForm.Has("client_id") || gotUser != url.QueryEscape("weft id") || gotPass != url.QueryEscape(row.secret) {
					t.Errorf("Basic %q:%q with form %v; want the form-encoded credentials in the header only", gotUser, gotPass, gotForm)
				}
			} else if gotForm.Get("client_id") != "weft id" || gotForm.Get("client_secret") != row.secret {
				t.Errorf("form %v changed", gotForm)
			}
		})
	}
}
