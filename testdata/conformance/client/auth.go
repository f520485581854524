package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/weft-dev/weft/internal/config"
	"github.com/weft-dev/weft/internal/oauth"
)

// secretEnv is where the scenario's pre-registered client secret is put,
// so that it reaches weft the way a user's does: by client_secret_env.
const secretEnv = "CONFORMANCE_CLIENT_SECRET"

// loginManager is weft's OAuth client as `weft mcp add` runs it, with the
// suite's fixed redirect URL and a "browser" that takes the code from the
// authorization server's immediate redirect. Tokens go to a file store in a
// temporary WEFT_HOME.
func loginManager(logger *slog.Logger, cfg *config.Server, scenario string, home string) (*oauth.Manager, error) {
	getenv := func(k string) string {
		switch k {
		case "WEFT_HOME":
			return home
		case "WEFT_TOKEN_STORE":
			return oauth.StoreFile
		}
		return os.Getenv(k)
	}
	store, err := oauth.OpenStore(oauth.StoreFile, getenv)
	if err != nil {
		return nil, err
	}
	cfg.OAuth = scenarioOAuth(scenario)
	const redirect = "http://localhost:3000/callback"
	return oauth.NewManager(oauth.ManagerOptions{
		Store:  store,
		Getenv: getenv,
		Logger: logger,
		Login: &oauth.Login{
			RedirectURL:       func(int) (string, error) { return redirect, nil },
			Fetch:             followOnce,
			ClientMetadataURL: "https://conformance-test.local/client-metadata.json",
		},
	}), nil
}

// scenarioOAuth is the oauth table a user would write for the scenario:
// the pre-registered client the suite hands over, and the grant.
func scenarioOAuth(scenario string) *config.OAuth {
	var ctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &ctx)
	o := &config.OAuth{}
	if ctx.ClientID != "" && ctx.ClientSecret != "" {
		_ = os.Setenv(secretEnv, ctx.ClientSecret)
		o.ClientID, o.ClientSecretEnv = ctx.ClientID, secretEnv
	}
	if strings.HasPrefix(scenario, "auth/client-credentials") {
		o.Grant = config.GrantClientCredentials
	}
	return o
}

// followOnce requests the authorization URL and reads the code from the
// redirect the suite's authorization server answers with at once.
func followOnce(ctx context.Context, _, authURL string) (*auth.AuthorizationResult, error) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		return nil, fmt.Errorf("authorization redirect: %w", err)
	}
	q := loc.Query()
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
