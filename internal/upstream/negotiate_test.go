package upstream

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/weft-dev/weft/internal/config"
)

// TestHandshakePicksTheRevisionThatRelaysEverything checks the revision weft
// speaks with an HTTP upstream: 2025-11-25 with a server that gives a
// session (its classic requests work there), 2026-07-28 with a stateless
// one (it can only ask for input with input-required results), and the
// pinned revision whatever the server.
func TestHandshakePicksTheRevisionThatRelaysEverything(t *testing.T) {
	cases := []struct {
		name      string
		stateless bool
		pin       string
		want      string
	}{
		{"stateful server", false, "", "2025-11-25"},
		{"stateless server", true, "", "2026-07-28"},
		{"stateless server, pinned", true, "2025-11-25", "2025-11-25"},
		{"stateful server, pinned", false, "2025-06-18", "2025-06-18"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
				&mcp.StreamableHTTPOptions{Stateless: c.stateless}))
			defer ts.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			conn, err := Dial(ctx, &config.Server{Name: "up", Type: config.TransportHTTP, Target: ts.URL, ProtocolVersion: c.pin}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if got := conn.Info().ProtocolVersion; got != c.want {
				t.Errorf("negotiated %s, want %s", got, c.want)
			}
			if len(conn.Inventory().Tools) != 1 {
				t.Errorf("tools listed: %d, want 1", len(conn.Inventory().Tools))
			}
		})
	}
}

// A stateless server that refuses the newest revision keeps the legacy
// session, and weft's own POSTs keep that session's client (its
// connections and OAuth handler), not the refused probe's.
func TestFallbackKeepsTheSessionsPoster(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(NewestProtocolVersion)) || r.Header.Get("Mcp-Protocol-Version") == NewestProtocolVersion {
			http.Error(w, "unsupported protocol version", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newConn(&config.Server{Name: "up", Type: config.TransportHTTP, Target: ts.URL}, Options{})
	defer c.Close(context.Background())
	if err := c.attempt(ctx, LegacyProtocolVersion, 0); err != nil {
		t.Fatal(err)
	}
	kept := c.poster
	if err := c.preferStateless(ctx); err != nil {
		t.Fatal(err)
	}
	if got := c.Info().ProtocolVersion; got != LegacyProtocolVersion {
		t.Fatalf("negotiated %s, want the legacy session kept", got)
	}
	if c.poster != kept {
		t.Error("weft's POSTs use the refused probe's client, not the kept session's")
	}
}
