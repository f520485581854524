//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFaceTypeScriptOAuthClient logs the official TypeScript SDK's OAuth
// client in to weft's face, protected by the security guide's
// [gateway.auth] with oidc-provider as the authorization server: the SDK
// discovers the provider from weft's 401, registers itself, runs the
// authorization-code flow with PKCE, and its tool call goes through weft.
func TestFaceTypeScriptOAuthClient(t *testing.T) {
	node := npmBin(t, "node")
	e, _, _ := guardedWeft(t)
	s := e.serve()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "tsclient", "oauth.mjs"))
	cmd := exec.CommandContext(ctx, node, script, s.url, "fake__echo", `{"text":"from typescript"}`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var got struct {
		Challenged, Registered, Authorized, Token bool
		Call                                      *struct {
			IsError bool
			Text    string
		}
		Errors []string
	}
	if jerr := json.Unmarshal(out, &got); jerr != nil {
		t.Fatalf("oauth.mjs: %v (%v)\n%s\n%s", err, jerr, out, stderr.String())
	}
	if err != nil || len(got.Errors) > 0 {
		t.Fatalf("oauth.mjs failed (%v): %s\n%s", err, got.Errors, stderr.String())
	}
	if !got.Challenged || !got.Registered || !got.Authorized || !got.Token {
		t.Errorf("the flow skipped a step: %s", out)
	}
	if got.Call == nil || got.Call.IsError || !strings.Contains(got.Call.Text, "fake:from typescript") {
		t.Errorf("the tool call through weft: %s", out)
	}
}
