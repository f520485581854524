package gateway

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPeerParksOnlyACallThatCanBeAsked(t *testing.T) {
	tests := []struct {
		name    string
		version string
		caps    mcp.ClientCapabilities
		state   string
		want    bool
	}{
		{"legacy client with every capability", "2025-11-25", mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, RootsV2: &mcp.RootCapabilities{}}, "", false},
		{"2026-07-28 client with no capability", newestVersion, mcp.ClientCapabilities{}, "", false},
		{"2026-07-28 client with roots", newestVersion, mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}, "", true},
		{"2026-07-28 client with sampling", newestVersion, mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}, "", true},
		{"2026-07-28 client with elicitation", newestVersion, mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}, "", true},
		{"a retry of a parked call", newestVersion, mcp.ClientCapabilities{}, parkPrefix + "abc", true},
		{"an upstream's own request state", newestVersion, mcp.ClientCapabilities{}, "upstream-state", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := sessionPeer{caps: &tt.caps, version: tt.version}
			if got := p.parks(tt.state); got != tt.want {
				t.Errorf("parks(%q) = %v, want %v", tt.state, got, tt.want)
			}
		})
	}
}

// TestStatelessCallOfAClientThatCannotBeAsked: a 2026-07-28 client that
// declares no capability gets its calls made on the request's goroutine,
// not parked; what the upstream asks it is refused as before, and its
// call still ends with its POST.
func TestStatelessCallOfAClientThatCannotBeAsked(t *testing.T) {
	_, addr, ended := statelessFace(t, nil)
	cs, k := defaultClient(t, addr, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "alpha:hi") {
		t.Fatalf("plain call: %v %+v", err, res)
	}
	<-ended
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__elicit"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "does not support elicitation") {
		t.Fatalf("a call whose upstream asks for input: %v %+v, want the tool error saying the client cannot be asked", err, res)
	}
	<-ended
	if got := strings.Join(k.take(), ","); got != "application/json,application/json" {
		t.Fatalf("answered as %s, want both relayed and no retry", got)
	}
	callEndsWithItsPOST(ctx, t, cs, ended)
}
