package faceauth

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

func TestIdentitiesAgentOf(t *testing.T) {
	agents := map[string]string{"cursor-team": "coder", "ci-bot": "reviewer", "weft.coder": "coder", "weft.reviewer": "reviewer"}
	tests := []struct {
		name    string
		claim   string
		info    auth.TokenInfo
		want    string
		wantErr string
	}{
		{"a string claim", "azp", auth.TokenInfo{Extra: map[string]any{"azp": "cursor-team"}}, "coder", ""},
		{"a custom list claim", "groups", auth.TokenInfo{Extra: map[string]any{"groups": []any{"staff", "ci-bot"}}}, "reviewer", ""},
		{"an unmapped value", "azp", auth.TokenInfo{Extra: map[string]any{"azp": "someone"}}, "", ""},
		{"no such claim", "client_id", auth.TokenInfo{Extra: map[string]any{"azp": "cursor-team"}}, "", ""},
		{"a number is no identity", "sub", auth.TokenInfo{Extra: map[string]any{"sub": 42.0}}, "", ""},
		{"by scope", "scope", auth.TokenInfo{Scopes: []string{"mcp:tools", "weft.reviewer"}}, "reviewer", ""},
		{"two scopes of one agent", "scope", auth.TokenInfo{Scopes: []string{"weft.coder", "weft.coder"}}, "coder", ""},
		{"scopes of two agents", "scope", auth.TokenInfo{Scopes: []string{"weft.coder", "weft.reviewer"}}, "", "selects agents coder and reviewer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Identities{Claim: tt.claim, Agents: agents}.AgentOf(&tt.info)
			if got != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("AgentOf = %q, %v; want %q, %q", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
